// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CSDBus — systemd's sd-bus for the Secret Service provider (secureroom-vault serve),
 * loaded when it is first used: libsystemd.so.0 (and what it pulls in: libgcrypt, liblzma,
 * libzstd, liblz4, libcap) is opened with dlopen(3) at the first call of a function below,
 * not at every start of secureroom-vault (docs/DESIGN.md §14).
 *
 * sr_X has the signature of libsystemd's X and calls it; while the library cannot be
 * loaded, functions returning int return -ENOSYS, pointer ones NULL, void ones do nothing,
 * and sr_sd_bus_load_error says why. Types and constants are the real header's.
 */
#ifndef CSDBUS_H
#define CSDBUS_H

#include <systemd/sd-bus.h>

/* Loads libsystemd.so.0 if not yet loaded (thread-safe; a failure is tried again at the next
 * call); 0 when it is loaded. */
int sr_sd_bus_load(void);

/* Why it could not be loaded (dlerror(3)'s text, or the symbol it lacks); "" once loaded. */
const char *sr_sd_bus_load_error(void);

int sr_sd_bus_add_fallback(sd_bus *bus, sd_bus_slot **slot, const char *prefix, sd_bus_message_handler_t callback,
                           void *userdata);
int sr_sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply);
int sr_sd_bus_creds_get_pid(sd_bus_creds *c, pid_t *pid);
int sr_sd_bus_creds_get_unique_name(sd_bus_creds *c, const char **name);
sd_bus_creds *sr_sd_bus_creds_unref(sd_bus_creds *c);
void sr_sd_bus_error_free(sd_bus_error *e);
int sr_sd_bus_error_set(sd_bus_error *e, const char *name, const char *message);
sd_bus *sr_sd_bus_flush_close_unref(sd_bus *bus);
int sr_sd_bus_get_events(sd_bus *bus);
int sr_sd_bus_get_fd(sd_bus *bus);
int sr_sd_bus_get_name_creds(sd_bus *bus, const char *name, uint64_t mask, sd_bus_creds **creds);
int sr_sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec);
int sr_sd_bus_match_signal(sd_bus *bus, sd_bus_slot **ret, const char *sender, const char *path, const char *interface,
                           const char *member, sd_bus_message_handler_t callback, void *userdata);
int sr_sd_bus_message_append_array(sd_bus_message *m, char type, const void *ptr, size_t size);
int sr_sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
int sr_sd_bus_message_at_end(sd_bus_message *m, int complete);
int sr_sd_bus_message_close_container(sd_bus_message *m);
int sr_sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
int sr_sd_bus_message_exit_container(sd_bus_message *m);
const char *sr_sd_bus_message_get_interface(sd_bus_message *m);
const char *sr_sd_bus_message_get_member(sd_bus_message *m);
const char *sr_sd_bus_message_get_path(sd_bus_message *m);
const char *sr_sd_bus_message_get_sender(sd_bus_message *m);
const char *sr_sd_bus_message_get_signature(sd_bus_message *m, int complete);
int sr_sd_bus_message_has_signature(sd_bus_message *m, const char *signature);
int sr_sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                      const char *interface, const char *member);
int sr_sd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **m);
int sr_sd_bus_message_new_signal(sd_bus *bus, sd_bus_message **m, const char *path, const char *interface,
                                 const char *member);
int sr_sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents);
int sr_sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
int sr_sd_bus_message_read_array(sd_bus_message *m, char type, const void **ptr, size_t *size);
int sr_sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
sd_bus_message *sr_sd_bus_message_ref(sd_bus_message *m);
int sr_sd_bus_message_sensitive(sd_bus_message *m);
int sr_sd_bus_message_set_auto_start(sd_bus_message *m, int b);
int sr_sd_bus_message_set_destination(sd_bus_message *m, const char *destination);
int sr_sd_bus_message_set_expect_reply(sd_bus_message *m, int b);
int sr_sd_bus_message_skip(sd_bus_message *m, const char *types);
sd_bus_message *sr_sd_bus_message_unref(sd_bus_message *m);
int sr_sd_bus_open_user(sd_bus **ret);
int sr_sd_bus_process(sd_bus *bus, sd_bus_message **r);
int sr_sd_bus_release_name(sd_bus *bus, const char *name);
int sr_sd_bus_reply_method_error(sd_bus_message *call, const sd_bus_error *e);
int sr_sd_bus_request_name(sd_bus *bus, const char *name, uint64_t flags);
int sr_sd_bus_send(sd_bus *bus, sd_bus_message *m, uint64_t *cookie);
sd_bus_slot *sr_sd_bus_slot_unref(sd_bus_slot *slot);

#endif
