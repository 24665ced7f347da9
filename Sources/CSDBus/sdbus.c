// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#include "CSDBus.h"
#include "CSecureRoomSystem.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>

/* Every sd-bus function SecureRoom calls. */
#define SR_SD_BUS_FUNCTIONS(X)                                                                                         \
    X(sd_bus_add_fallback)                                                                                             \
    X(sd_bus_call)                                                                                                     \
    X(sd_bus_creds_get_pid)                                                                                            \
    X(sd_bus_creds_get_unique_name)                                                                                    \
    X(sd_bus_creds_unref)                                                                                              \
    X(sd_bus_error_free)                                                                                               \
    X(sd_bus_error_set)                                                                                                \
    X(sd_bus_flush_close_unref)                                                                                        \
    X(sd_bus_get_events)                                                                                               \
    X(sd_bus_get_fd)                                                                                                   \
    X(sd_bus_get_name_creds)                                                                                           \
    X(sd_bus_get_timeout)                                                                                              \
    X(sd_bus_match_signal)                                                                                             \
    X(sd_bus_message_append_array)                                                                                     \
    X(sd_bus_message_append_basic)                                                                                     \
    X(sd_bus_message_at_end)                                                                                           \
    X(sd_bus_message_close_container)                                                                                  \
    X(sd_bus_message_enter_container)                                                                                  \
    X(sd_bus_message_exit_container)                                                                                   \
    X(sd_bus_message_get_interface)                                                                                    \
    X(sd_bus_message_get_member)                                                                                       \
    X(sd_bus_message_get_path)                                                                                         \
    X(sd_bus_message_get_sender)                                                                                       \
    X(sd_bus_message_get_signature)                                                                                    \
    X(sd_bus_message_has_signature)                                                                                    \
    X(sd_bus_message_new_method_call)                                                                                  \
    X(sd_bus_message_new_method_return)                                                                                \
    X(sd_bus_message_new_signal)                                                                                       \
    X(sd_bus_message_open_container)                                                                                   \
    X(sd_bus_message_peek_type)                                                                                        \
    X(sd_bus_message_read_array)                                                                                       \
    X(sd_bus_message_read_basic)                                                                                       \
    X(sd_bus_message_ref)                                                                                              \
    X(sd_bus_message_sensitive)                                                                                        \
    X(sd_bus_message_set_auto_start)                                                                                   \
    X(sd_bus_message_set_destination)                                                                                  \
    X(sd_bus_message_set_expect_reply)                                                                                 \
    X(sd_bus_message_skip)                                                                                             \
    X(sd_bus_message_unref)                                                                                            \
    X(sd_bus_open_user)                                                                                                \
    X(sd_bus_process)                                                                                                  \
    X(sd_bus_release_name)                                                                                             \
    X(sd_bus_reply_method_error)                                                                                       \
    X(sd_bus_request_name)                                                                                             \
    X(sd_bus_send)                                                                                                     \
    X(sd_bus_slot_unref)

/* The functions (fn), load(), lazy and loaded(): libsystemd opened on first use. */
SR_LAZY_FUNCTIONS(SR_SD_BUS_FUNCTIONS, "libsystemd.so.0", RTLD_LOCAL, "libsystemd is not loaded")

int sr_sd_bus_load(void) { return loaded() ? 0 : -1; }

const char *sr_sd_bus_load_error(void) { return sr_lazy_error(&lazy); }

int sr_sd_bus_add_fallback(sd_bus *bus, sd_bus_slot **slot, const char *prefix, sd_bus_message_handler_t callback,
                           void *userdata)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_add_fallback(bus, slot, prefix, callback, userdata);
}
int sr_sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_call(bus, m, usec, ret_error, reply);
}
int sr_sd_bus_creds_get_pid(sd_bus_creds *c, pid_t *pid)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_creds_get_pid(c, pid);
}
int sr_sd_bus_creds_get_unique_name(sd_bus_creds *c, const char **name)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_creds_get_unique_name(c, name);
}
sd_bus_creds *sr_sd_bus_creds_unref(sd_bus_creds *c)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_creds_unref(c);
}
void sr_sd_bus_error_free(sd_bus_error *e)
{
    if (!loaded())
        return;
    fn.sd_bus_error_free(e);
}
int sr_sd_bus_error_set(sd_bus_error *e, const char *name, const char *message)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_error_set(e, name, message);
}
sd_bus *sr_sd_bus_flush_close_unref(sd_bus *bus)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_flush_close_unref(bus);
}
int sr_sd_bus_get_events(sd_bus *bus)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_get_events(bus);
}
int sr_sd_bus_get_fd(sd_bus *bus)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_get_fd(bus);
}
int sr_sd_bus_get_name_creds(sd_bus *bus, const char *name, uint64_t mask, sd_bus_creds **creds)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_get_name_creds(bus, name, mask, creds);
}
int sr_sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_get_timeout(bus, timeout_usec);
}
int sr_sd_bus_match_signal(sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface,
                           const char *member, sd_bus_message_handler_t callback, void *userdata)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_match_signal(bus, ret, sender, path, interface, member, callback, userdata);
}
int sr_sd_bus_message_append_array(sd_bus_message *m, char type, const void *ptr, size_t size)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_append_array(m, type, ptr, size);
}
int sr_sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_append_basic(m, type, p);
}
int sr_sd_bus_message_at_end(sd_bus_message *m, int complete)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_at_end(m, complete);
}
int sr_sd_bus_message_close_container(sd_bus_message *m)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_close_container(m);
}
int sr_sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_enter_container(m, type, contents);
}
int sr_sd_bus_message_exit_container(sd_bus_message *m)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_exit_container(m);
}
const char *sr_sd_bus_message_get_interface(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_get_interface(m);
}
const char *sr_sd_bus_message_get_member(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_get_member(m);
}
const char *sr_sd_bus_message_get_path(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_get_path(m);
}
const char *sr_sd_bus_message_get_sender(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_get_sender(m);
}
const char *sr_sd_bus_message_get_signature(sd_bus_message *m, int complete)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_get_signature(m, complete);
}
int sr_sd_bus_message_has_signature(sd_bus_message *m, const char *signature)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_has_signature(m, signature);
}
int sr_sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                      const char *interface, const char *member)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_new_method_call(bus, m, destination, path, interface, member);
}
int sr_sd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **m)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_new_method_return(call, m);
}
int sr_sd_bus_message_new_signal(sd_bus *bus, sd_bus_message **m, const char *path, const char *interface,
                                 const char *member)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_new_signal(bus, m, path, interface, member);
}
int sr_sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_open_container(m, type, contents);
}
int sr_sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_peek_type(m, type, contents);
}
int sr_sd_bus_message_read_array(sd_bus_message *m, char type, const void **ptr, size_t *size)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_read_array(m, type, ptr, size);
}
int sr_sd_bus_message_read_basic(sd_bus_message *m, char type, void *p)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_read_basic(m, type, p);
}
sd_bus_message *sr_sd_bus_message_ref(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_ref(m);
}
int sr_sd_bus_message_sensitive(sd_bus_message *m)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_sensitive(m);
}
int sr_sd_bus_message_set_auto_start(sd_bus_message *m, int b)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_set_auto_start(m, b);
}
int sr_sd_bus_message_set_destination(sd_bus_message *m, const char *destination)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_set_destination(m, destination);
}
int sr_sd_bus_message_set_expect_reply(sd_bus_message *m, int b)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_set_expect_reply(m, b);
}
int sr_sd_bus_message_skip(sd_bus_message *m, const char *types)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_message_skip(m, types);
}
sd_bus_message *sr_sd_bus_message_unref(sd_bus_message *m)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_message_unref(m);
}
int sr_sd_bus_open_user(sd_bus **ret)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_open_user(ret);
}
int sr_sd_bus_process(sd_bus *bus, sd_bus_message **r)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_process(bus, r);
}
int sr_sd_bus_release_name(sd_bus *bus, const char *name)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_release_name(bus, name);
}
int sr_sd_bus_reply_method_error(sd_bus_message *call, const sd_bus_error *e)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_reply_method_error(call, e);
}
int sr_sd_bus_request_name(sd_bus *bus, const char *name, uint64_t flags)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_request_name(bus, name, flags);
}
int sr_sd_bus_send(sd_bus *bus, sd_bus_message *m, uint64_t *cookie)
{
    if (!loaded())
        return -ENOSYS;
    return fn.sd_bus_send(bus, m, cookie);
}
sd_bus_slot *sr_sd_bus_slot_unref(sd_bus_slot *slot)
{
    if (!loaded())
        return NULL;
    return fn.sd_bus_slot_unref(slot);
}
