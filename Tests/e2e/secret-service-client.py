#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
# Tests/e2e/secret-service-client.py — the D-Bus clients of Tests/e2e/secret-service.sh.
#
# Run by that script as the test user, with DBUS_SESSION_BUS_ADDRESS pointing at the
# test's private session bus, one subcommand per run. Each subcommand prints TAP-like
# lines the script counts ("ok - DESCRIPTION" / "not ok - DESCRIPTION", then "#   ..."
# details) and "# ..." notes; it exits 0 when it ran to the end (whatever the checks
# said) and non-zero when it could not (the script counts that as a failure too).
#
# Clients, so that the provider meets more than one implementation:
#   * SecretStorage (python3-secretstorage, over jeepney): a DH session
#     (dh-ietf1024-sha256-aes128-cbc-pkcs7), text and binary values;
#   * libsecret through GObject introspection (gi.repository.Secret), as GNOME apps use it;
#   * dbus-python (python3-dbus): raw calls in a "plain" session;
#   * jeepney raw messages: the error cases, pipelined bulk writes, and one message
#     whose bytes are edited by hand (invalid UTF-8 in a string) before it is sent.
#
# Expected values are kept in JSON maps (item path -> value, hex) that later runs read to
# prove nothing was lost.
import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
import traceback

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, message_bus, new_method_call
from jeepney.io.blocking import Proxy, open_dbus_connection
from jeepney.wrappers import DBusErrorResponse

SS = "org.freedesktop.secrets"
SP = "/org/freedesktop/secrets"
COLL = SP + "/collection/login"
SERVICE_IF = "org.freedesktop.Secret.Service"
COLL_IF = "org.freedesktop.Secret.Collection"
ITEM_IF = "org.freedesktop.Secret.Item"
SESSION_IF = "org.freedesktop.Secret.Session"
PROMPT_IF = "org.freedesktop.Secret.Prompt"
PROPS_IF = "org.freedesktop.DBus.Properties"
LABEL = "org.freedesktop.Secret.Item.Label"
ATTRS = "org.freedesktop.Secret.Item.Attributes"
DH = "dh-ietf1024-sha256-aes128-cbc-pkcs7"
ITEM_RE = re.compile(r"^/org/freedesktop/secrets/collection/login/[0-9a-f]{64}$")
SESSION_RE = re.compile(r"^/org/freedesktop/secrets/session/[0-9]+$")
PROMPT_RE = re.compile(r"^/org/freedesktop/secrets/prompt/[0-9]+$")

E_LOCKED = "org.freedesktop.Secret.Error.IsLocked"
E_NOSESSION = "org.freedesktop.Secret.Error.NoSession"
E_NOOBJECT = "org.freedesktop.Secret.Error.NoSuchObject"
E_INVALID = "org.freedesktop.DBus.Error.InvalidArgs"
E_NOTSUP = "org.freedesktop.DBus.Error.NotSupported"
MIB = 1024 * 1024


# ---- output ----------------------------------------------------------------------------
def check(ok, desc, detail=None):
    print(("ok - " if ok else "not ok - ") + desc, flush=True)
    if not ok and detail is not None:
        for line in str(detail).splitlines()[:12]:
            print("#   " + line[:400], flush=True)
    return ok


def note(text):
    print("# " + text, flush=True)


def value_of(prefix, i):
    """The value of item i of a generated set (the shell computes the same string)."""
    return ("%s secret #%d" % (prefix, i)).encode()


# ---- DH (the algorithm libsecret and SecretStorage use) -----------------------------------
def dh_session_keys():
    from secretstorage.dhcrypto import Session, int_to_bytes
    s = Session()
    return s, int_to_bytes(s.my_public_key)


def aes_encrypt(key, plain):
    from cryptography.hazmat.backends import default_backend
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    iv = os.urandom(16)
    pad = 16 - len(plain) % 16
    data = plain + bytes([pad]) * pad
    enc = Cipher(algorithms.AES(key), modes.CBC(iv), default_backend()).encryptor()
    return iv, enc.update(data) + enc.finalize()


def aes_raw_encrypt(key, iv, data):
    """AES-128-CBC without padding (to make ciphertexts whose padding is wrong)."""
    from cryptography.hazmat.backends import default_backend
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    enc = Cipher(algorithms.AES(key), modes.CBC(iv), default_backend()).encryptor()
    return enc.update(data) + enc.finalize()


def aes_decrypt(key, iv, data):
    from cryptography.hazmat.backends import default_backend
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
    dec = Cipher(algorithms.AES(key), modes.CBC(iv), default_backend()).decryptor()
    out = dec.update(data) + dec.finalize()
    pad = out[-1]
    if not 1 <= pad <= 16 or out[-pad:] != bytes([pad]) * pad:
        raise ValueError("bad padding in the provider's reply")
    return out[:-pad]


# ---- jeepney client ----------------------------------------------------------------------
class Failed(Exception):
    """A D-Bus error reply: .name, .message."""

    def __init__(self, name, message=""):
        super().__init__("%s: %s" % (name, message))
        self.name = name
        self.message = message


class Client:
    def __init__(self):
        self.conn = open_dbus_connection(bus="SESSION")
        self.bus = Proxy(message_bus, self.conn)
        self.session = None
        self.aes = None

    def close(self):
        self.conn.close()

    def call(self, path, iface, method, sig, *args, timeout=60):
        msg = new_method_call(DBusAddress(path, bus_name=SS, interface=iface), method, sig, args)
        reply = self.conn.send_and_get_reply(msg, timeout=timeout)
        if reply.header.message_type == MessageType.error:
            body = reply.body[0] if reply.body and isinstance(reply.body[0], str) else ""
            raise Failed(reply.header.fields.get(HeaderFields.error_name), body)
        return reply.body

    def outcome(self, path, iface, method, sig, *args, timeout=60):
        """('ok', body) or ('error', name) — never raises for a D-Bus error."""
        try:
            return ("ok", list(self.call(path, iface, method, sig, *args, timeout=timeout)))
        except Failed as e:
            return ("error", e.name)

    def prop(self, path, iface, name):
        return self.call(path, PROPS_IF, "Get", "ss", iface, name)[0][1]

    def open_plain(self):
        out, path = self.call(SP, SERVICE_IF, "OpenSession", "sv", "plain", ("s", ""))
        self.session, self.aes = path, None
        return path

    def open_dh(self):
        s, pub = dh_session_keys()
        out, path = self.call(SP, SERVICE_IF, "OpenSession", "sv", DH, ("ay", pub))
        if out[0] != "ay":
            raise RuntimeError("DH OpenSession output is not ay: %r" % (out,))
        s.set_server_public_key(int.from_bytes(out[1], "big"))
        self.session, self.aes = path, s.aes_key
        return path

    def secret(self, value, content_type="text/plain", session=None):
        session = session or self.session
        if self.aes is None or session != self.session:
            return (session, b"", value, content_type)
        iv, data = aes_encrypt(self.aes, value)
        return (session, iv, data, content_type)

    def decode(self, secret):
        session, params, value, ctype = secret
        if self.aes is None:
            return bytes(value), ctype
        return aes_decrypt(self.aes, bytes(params), bytes(value)), ctype

    def create_msg(self, label, attrs, value, replace=False, content_type="text/plain"):
        props = {LABEL: ("s", label), ATTRS: ("a{ss}", attrs)}
        return new_method_call(DBusAddress(COLL, bus_name=SS, interface=COLL_IF), "CreateItem",
                               "a{sv}(oayays)b", (props, self.secret(value, content_type), replace))

    def create(self, label, attrs, value, replace=False, content_type="text/plain"):
        props = {LABEL: ("s", label), ATTRS: ("a{ss}", attrs)}
        item, prompt = self.call(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b",
                                 props, self.secret(value, content_type), replace)
        return item, prompt

    def get_secret(self, item):
        return self.decode(self.call(item, ITEM_IF, "GetSecret", "o", self.session)[0])

    def get_secrets(self, items, chunk=1000):
        """{path: value} for every unlocked item among `items` (Service.GetSecrets)."""
        found = {}
        for k in range(0, len(items), chunk):
            reply = self.call(SP, SERVICE_IF, "GetSecrets", "aoo", items[k:k + chunk], self.session, timeout=300)[0]
            for path, secret in reply.items():
                found[path] = self.decode(secret)[0]
        return found

    def search(self, attrs):
        return self.call(SP, SERVICE_IF, "SearchItems", "a{ss}", attrs)

    def items(self):
        return list(self.prop(COLL, COLL_IF, "Items"))

    def pipelined(self, msgs, window=64):
        """Sends `msgs` keeping up to `window` calls outstanding; returns the replies in order."""
        replies = [None] * len(msgs)
        pending = {}
        nxt = 0
        while nxt < len(msgs) or pending:
            while nxt < len(msgs) and len(pending) < window:
                serial = next(self.conn.outgoing_serial)
                self.conn.send(msgs[nxt], serial=serial)
                pending[serial] = nxt
                nxt += 1
            m = self.conn.receive(timeout=120)
            rs = m.header.fields.get(HeaderFields.reply_serial)
            if rs in pending:
                replies[pending.pop(rs)] = m
        return replies

    def wait_signal(self, rule, start, timeout):
        """Runs start(), then waits for a signal matching rule: (msg or None, seconds)."""
        self.bus.AddMatch(rule)
        with self.conn.filter(rule) as queue:
            t0 = time.monotonic()
            start()
            try:
                msg = self.conn.recv_until_filtered(queue, timeout=timeout)
            except TimeoutError:
                return None, time.monotonic() - t0
            return msg, time.monotonic() - t0


def provider_alive(client, pid, owner):
    """The provider process still runs and still answers as the same name owner."""
    try:
        os.kill(pid, 0)
    except OSError as e:
        return False, "provider pid %d: %s" % (pid, e)
    try:
        now = client.bus.GetNameOwner(SS)[0]
    except Exception as e:
        return False, "GetNameOwner: %s" % e
    if now != owner:
        return False, "name owner %s, was %s" % (now, owner)
    try:
        cols = client.prop(SP, SERVICE_IF, "Collections")
    except Exception as e:
        return False, "Service.Collections: %s" % e
    if COLL not in cols:
        return False, "Collections is %r" % (cols,)
    return True, ""


def save_map(path, mapping):
    old = {}
    if os.path.exists(path):
        with open(path) as f:
            old = json.load(f)
    old.update({k: v.hex() for k, v in mapping.items()})
    with open(path + ".tmp", "w") as f:
        json.dump(old, f)
    os.replace(path + ".tmp", path)


def load_map(path):
    with open(path) as f:
        return {k: bytes.fromhex(v) for k, v in json.load(f).items()}


# ---- subcommands -----------------------------------------------------------------------
def cmd_shape(a):
    """The objects of the contract: aliases, the collection, CreateCollection."""
    c = Client()
    c.open_plain()
    cols = c.prop(SP, SERVICE_IF, "Collections")
    check(COLL in cols, "Service.Collections lists %s" % COLL, repr(cols))
    aliases = {name: c.call(SP, SERVICE_IF, "ReadAlias", "s", name)[0] for name in ("default", "login", "nosuch")}
    check(aliases == {"default": COLL, "login": COLL, "nosuch": "/"},
          "ReadAlias: default and login -> %s, another alias -> /" % COLL, repr(aliases))
    label = c.prop(COLL, COLL_IF, "Label")
    alias_label = c.prop(SP + "/aliases/default", COLL_IF, "Label")
    check(label == "Login" and alias_label == "Login",
          "the collection's Label is \"Login\", also through /org/freedesktop/secrets/aliases/default",
          "%r %r" % (label, alias_label))
    got = c.outcome(SP, SERVICE_IF, "CreateCollection", "a{sv}s", {"org.freedesktop.Secret.Collection.Label": ("s", "x")}, "default")
    other = c.outcome(SP, SERVICE_IF, "CreateCollection", "a{sv}s", {"org.freedesktop.Secret.Collection.Label": ("s", "x")}, "work")
    check(got[0] == "ok" and got[1][0] == COLL and other == ("error", E_NOTSUP),
          "CreateCollection: alias \"default\" returns the login collection, alias \"work\" is NotSupported",
          "%r / %r" % (got, other))


def cmd_secretstorage(a):
    """SecretStorage: DH session, text and binary values read back byte for byte by a
    second connection (another DH session)."""
    import secretstorage
    conn = secretstorage.dbus_init()
    coll = secretstorage.get_default_collection(conn)   # /org/freedesktop/secrets/aliases/default
    text = "SecretStorage text value \u00e9\u00e8 \u2603".encode()
    binary = b"\x00\x01NUL\x00inside\x00" + bytes(range(256)) + b"\x00"
    it1 = coll.create_item("e2e SecretStorage text", {"e2e": "secretstorage", "kind": "text"}, text, replace=True)
    it2 = coll.create_item("e2e SecretStorage binary", {"e2e": "secretstorage", "kind": "binary"}, binary,
                           replace=True, content_type="application/octet-stream")
    session = it1.session
    check(session is not None and session.encrypted and session.aes_key is not None and len(session.aes_key) == 16
          and SESSION_RE.match(session.object_path or ""),
          "SecretStorage negotiated %s (encrypted session %s, 128-bit AES key)" % (DH, getattr(session, "object_path", None)),
          "encrypted=%s path=%s" % (getattr(session, "encrypted", None), getattr(session, "object_path", None)))
    check(ITEM_RE.match(it1.item_path) and ITEM_RE.match(it2.item_path) and it1.item_path != it2.item_path,
          "SecretStorage: CreateItem on /org/freedesktop/secrets/aliases/default gives item paths .../collection/login/<64 hex>",
          "%s %s" % (it1.item_path, it2.item_path))
    conn.close()

    conn2 = secretstorage.dbus_init()
    coll2 = secretstorage.get_collection_by_alias(conn2, "login")
    found = {tuple(sorted(i.get_attributes().items())): i for i in coll2.search_items({"e2e": "secretstorage"})}
    t = found.get((("e2e", "secretstorage"), ("kind", "text")))
    b = found.get((("e2e", "secretstorage"), ("kind", "binary")))
    tv = t.get_secret() if t else None
    bv = b.get_secret() if b else None
    check(t is not None and tv == text and t.get_label() == "e2e SecretStorage text",
          "SecretStorage DH round trip, second connection: the UTF-8 text value and label come back byte for byte",
          "%r" % (tv,))
    check(b is not None and bv == binary and b.get_secret_content_type() == "application/octet-stream",
          "SecretStorage DH round trip: a binary value with NUL bytes and all 256 byte values comes back byte for byte (%d bytes), content type kept" % len(binary),
          "got %d bytes, %r" % (len(bv or b""), (bv or b"")[:40]))
    save_map(a.map, {it1.item_path: text, it2.item_path: binary})
    conn2.close()


def cmd_gi(a):
    """libsecret through GObject introspection."""
    import gi
    gi.require_version("Secret", "1")
    from gi.repository import Secret
    service = Secret.Service.get_sync(Secret.ServiceFlags.OPEN_SESSION | Secret.ServiceFlags.LOAD_COLLECTIONS, None)
    algorithms = service.get_session_algorithms()
    check(algorithms == DH, "libsecret (GI): Secret.Service opened a %s session" % DH, repr(algorithms))
    schema = Secret.Schema.new("org.secureroom.E2E", Secret.SchemaFlags.NONE,
                               {"client": Secret.SchemaAttributeType.STRING, "n": Secret.SchemaAttributeType.INTEGER})
    value = "libsecret GI value \u00fc\u00f1\u00ee"
    ok = Secret.password_store_sync(schema, {"client": "gi", "n": "7"}, Secret.COLLECTION_DEFAULT,
                                    "e2e libsecret GI", value, None)
    back = Secret.password_lookup_sync(schema, {"client": "gi", "n": "7"}, None)
    check(ok and back == value, "libsecret (GI): password_store_sync then password_lookup_sync returns the value",
          "stored=%r back=%r" % (ok, back))
    items = service.search_sync(schema, {"client": "gi", "n": "7"},
                                Secret.SearchFlags.LOAD_SECRETS | Secret.SearchFlags.UNLOCK, None)
    attrs = items[0].get_attributes() if items else {}
    check(len(items) == 1 and items[0].get_label() == "e2e libsecret GI"
          and attrs == {"client": "gi", "n": "7", "xdg:schema": "org.secureroom.E2E"}
          and items[0].get_secret().get_text() == value,
          "libsecret (GI): search_sync finds exactly that item (label, attributes with xdg:schema, secret)",
          "%d items, attrs %r" % (len(items), attrs))
    if items:
        save_map(a.map, {items[0].get_object_path(): value.encode()})


def cmd_plain(a):
    """dbus-python, raw calls, a plain session."""
    import dbus
    bus = dbus.SessionBus()
    svc = dbus.Interface(bus.get_object(SS, SP, introspect=False), SERVICE_IF)
    output, session = svc.OpenSession("plain", dbus.String("", variant_level=1))
    check(str(output) == "" and SESSION_RE.match(str(session)),
          "dbus-python: OpenSession(\"plain\", \"\") returns output \"\" and a session path", "%r %r" % (output, session))
    coll = dbus.Interface(bus.get_object(SS, COLL, introspect=False), COLL_IF)
    value = b"plain session value\x00with a NUL \xff\xfe"
    props = dbus.Dictionary({LABEL: dbus.String("e2e dbus-python plain"),
                             ATTRS: dbus.Dictionary({"e2e": "plain", "client": "dbus-python"}, signature="ss")},
                            signature="sv")
    item, prompt = coll.CreateItem(props, dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(value), "text/plain")),
                                   True, signature="a{sv}(oayays)b")
    check(ITEM_RE.match(str(item)) and str(prompt) == "/",
          "dbus-python: CreateItem (plain secret, replace) returns an item path and prompt \"/\"", "%r %r" % (item, prompt))
    it = dbus.Interface(bus.get_object(SS, item, introspect=False), ITEM_IF)
    sess, params, got, ctype = it.GetSecret(session, byte_arrays=True)
    check(str(sess) == str(session) and bytes(params) == b"" and bytes(got) == value and str(ctype) == "text/plain",
          "dbus-python: Item.GetSecret in the plain session returns (session, \"\", the bytes, \"text/plain\")",
          "%r %r %r %r" % (sess, bytes(params), bytes(got), ctype))
    pr = dbus.Interface(bus.get_object(SS, item, introspect=False), PROPS_IF)
    allp = pr.GetAll(ITEM_IF)
    check(str(allp.get("Label")) == "e2e dbus-python plain" and not bool(allp.get("Locked"))
          and dict(allp.get("Attributes", {})) == {"e2e": "plain", "client": "dbus-python"},
          "dbus-python: the item's properties: Label, Attributes, Locked false", repr(dict(allp)))
    # Replace: the same attribute set, replace=true -> the same item path, new value.
    value2 = b"plain value, replaced"
    item2, _ = coll.CreateItem(props, dbus.Struct((session, dbus.ByteArray(b""), dbus.ByteArray(value2), "text/plain")),
                               True, signature="a{sv}(oayays)b")
    _, _, got2, _ = it.GetSecret(session, byte_arrays=True)
    check(str(item2) == str(item) and bytes(got2) == value2,
          "dbus-python: CreateItem with replace=true and the same attributes replaces that item (same path, new value)",
          "%s vs %s, %r" % (item2, item, bytes(got2)))
    save_map(a.map, {str(item): value2})
    # Across algorithms: what DH stored reads the same in plain, and the other way round.
    m = load_map(a.map)
    c = Client()
    c.open_plain()
    plain_view = c.get_secrets(list(m))
    c.open_dh()
    dh_view = c.get_secrets(list(m))
    check(plain_view == m and dh_view == m,
          "the values written so far (SecretStorage DH, libsecret DH, dbus-python plain) read the same in a plain and in a DH session (%d items, GetSecrets)" % len(m),
          "plain ok=%s dh ok=%s" % (plain_view == m, dh_view == m))


def cmd_bulk(a):
    """a.count items in one process, pipelined CreateItem calls."""
    c = Client()
    c.open_plain() if a.algo == "plain" else c.open_dh()
    before = len(c.items())
    t0 = time.monotonic()
    msgs = [c.create_msg("%s item %d" % (a.prefix, i), {"e2e": a.prefix, "idx": str(i)}, value_of(a.prefix, i))
            for i in range(a.count)]
    replies = c.pipelined(msgs, window=a.window)
    secs = time.monotonic() - t0
    errors = [r for r in replies if r is None or r.header.message_type != MessageType.method_return]
    paths = [r.body[0] for r in replies if r is not None and r.header.message_type == MessageType.method_return]
    note("created %d items in %.1f s (%.0f/s, %s session, %d calls in flight)" % (len(paths), secs, len(paths) / max(secs, 1e-9), a.algo, a.window))
    check(not errors and len(set(paths)) == a.count and all(ITEM_RE.match(p) for p in paths),
          "%d CreateItem calls from one process (%s session, pipelined) all answered with distinct item paths" % (a.count, a.algo),
          "%d errors, first: %s" % (len(errors), errors[0].header.fields.get(HeaderFields.error_name) if errors and errors[0] else None))
    save_map(a.map, {p: value_of(a.prefix, i) for i, p in enumerate(paths)})
    after = len(c.items())
    check(after - before == a.count, "the collection's Items grew by exactly %d (%d -> %d)" % (a.count, before, after), "%d -> %d" % (before, after))


def cmd_bulk_check(a):
    c = Client()
    c.open_dh()
    m = load_map(a.map)
    idx = random.Random(a.seed).randrange(a.count)
    t0 = time.monotonic()
    found = c.search({"e2e": a.prefix, "idx": str(idx)})
    secs = time.monotonic() - t0
    note("SearchItems among %d items took %.3f s" % (len(m), secs))
    unlocked, locked = found
    expected = [p for p, v in m.items() if v == value_of(a.prefix, idx)]
    check(len(unlocked) == 1 and not locked and unlocked == expected and c.get_secret(unlocked[0])[0] == value_of(a.prefix, idx),
          "SearchItems {e2e: %s, idx: %d} finds exactly one item, the one created for it, with its value" % (a.prefix, idx),
          "unlocked %r locked %r expected %r" % (unlocked[:3], locked[:3], expected))
    allp = c.search({"e2e": a.prefix})[0]
    check(sorted(allp) == sorted(m), "SearchItems {e2e: %s} finds exactly the %d items created" % (a.prefix, len(m)),
          "%d found" % len(allp))
    items = c.items()
    check(len(items) >= a.count and set(m) <= set(items),
          "the collection's Items property lists %d items, all %d created among them" % (len(items), len(m)),
          "%d items" % len(items))
    t0 = time.monotonic()
    got = c.get_secrets(list(m))
    note("GetSecrets of %d items (DH session, 1000 per call) took %.1f s" % (len(m), time.monotonic() - t0))
    bad = [p for p in m if got.get(p) != m[p]]
    check(not bad, "GetSecrets (DH session) returns the right value for all %d items" % len(m), "%d wrong, e.g. %r" % (len(bad), bad[:2]))


def cmd_writer(a):
    """One of the concurrent writers: waits for the start file, then creates its items one
    call at a time (so the writers interleave)."""
    c = Client()
    c.open_plain() if a.algo == "plain" else c.open_dh()
    while not os.path.exists(a.start):
        time.sleep(0.01)
    made, errors = {}, []
    for i in range(a.count):
        try:
            item, _ = c.create("%s item %d" % (a.prefix, i), {"e2e": a.prefix, "idx": str(i)}, value_of(a.prefix, i))
            made[item] = value_of(a.prefix, i)
        except Failed as e:
            errors.append(e.name)
    save_map(a.map, made)
    print("created %d errors %d %s" % (len(made), len(errors), errors[:3]), flush=True)
    return 0 if not errors else 3


def cmd_writers_check(a):
    c = Client()
    c.open_plain()
    for prefix, path in zip(a.prefixes, a.maps):
        m = load_map(path)
        found = c.search({"e2e": prefix})[0]
        got = c.get_secrets(found)
        check(len(m) == a.count and sorted(found) == sorted(m) and got == m,
              "writer %s: SearchItems finds exactly its %d items, each with its value" % (prefix, a.count),
              "map %d, found %d, values equal %s" % (len(m), len(found), got == m))
    before = set(json.load(open(a.snapshot)))
    known = set()
    for path in a.maps:
        known |= set(load_map(path))
    new = [p for p in c.items() if p not in before and p not in known]
    labels = {}
    for p in new:
        props = c.call(p, PROPS_IF, "GetAll", "s", ITEM_IF)[0]
        secret, ctype = c.get_secret(p)
        labels[props["Label"][1]] = (dict(props["Attributes"][1]), secret, ctype)
    want = {"cli-%d" % k: ({}, ("cli value %d\n" % k).encode(), "text/plain") for k in range(1, a.cli + 1)}
    check(labels == want,
          "the %d secrets `secureroom-vault add` stored meanwhile are D-Bus items too: Label = title, no attributes, text/plain, the value" % a.cli,
          "new items: %r" % sorted(labels)[:8])


def cmd_snapshot(a):
    c = Client()
    with open(a.out, "w") as f:
        json.dump(c.items(), f)


def cmd_item_of(a):
    """Prints the path of the one item with these attributes (k=v ...)."""
    c = Client()
    attrs = dict(kv.split("=", 1) for kv in a.attrs)
    unlocked, locked = c.search(attrs)
    print((unlocked + locked)[0] if len(unlocked + locked) == 1 else "none")


def cmd_locked(a):
    """The vault is locked: every call that needs the key says IsLocked; nothing leaks."""
    c = Client()
    c.open_dh()
    item = a.item
    res = {
        "Item.GetSecret": c.outcome(item, ITEM_IF, "GetSecret", "o", c.session),
        "Service.SearchItems": c.outcome(SP, SERVICE_IF, "SearchItems", "a{ss}", {"service": "secureroom-e2e"}),
        "Collection.SearchItems": c.outcome(COLL, COLL_IF, "SearchItems", "a{ss}", {"service": "secureroom-e2e"}),
        "Collection.CreateItem": c.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b",
                                           {LABEL: ("s", "e2e while locked"), ATTRS: ("a{ss}", {"e2e": "locked"})},
                                           c.secret(b"must not be stored"), False),
        "Item.SetSecret": c.outcome(item, ITEM_IF, "SetSecret", "(oayays)", c.secret(b"must not be stored")),
        "Set Label": c.outcome(item, PROPS_IF, "Set", "ssv", ITEM_IF, "Label", ("s", "renamed while locked")),
        "Item.Delete": c.outcome(item, ITEM_IF, "Delete", ""),
    }
    bad = {k: v for k, v in res.items() if v != ("error", E_LOCKED)}
    check(not bad, "locked: %s each answer %s" % (", ".join(res), E_LOCKED), repr(bad))
    secrets = c.outcome(SP, SERVICE_IF, "GetSecrets", "aoo", [item], c.session)
    check(secrets == ("ok", [{}]), "locked: Service.GetSecrets skips the locked item (returns an empty dict)", repr(secrets))
    props = c.outcome(item, PROPS_IF, "GetAll", "s", ITEM_IF)
    p = props[1][0] if props[0] == "ok" else {}
    check(props[0] == "ok" and p.get("Locked") == ("b", True) and p.get("Label") == ("s", "")
          and p.get("Attributes") == ("a{ss}", {}),
          "locked: the item's properties are Locked true, Label \"\", Attributes {} (nothing of the vault shown)", repr(props))
    clocked = c.outcome(COLL, PROPS_IF, "Get", "ss", COLL_IF, "Locked")
    check(clocked == ("ok", [("b", True)]), "locked: the collection's Locked property is true", repr(clocked))


def prompt_run(c, action, timeout, unlock_cmd=None, dismiss=False):
    """Unlock([collection]) -> prompt; then Prompt("") (or Dismiss()); waits for Completed.
    Returns (unlock reply, Completed body or None, seconds from Prompt to Completed)."""
    unlocked, prompt = c.call(SP, SERVICE_IF, "Unlock", "ao", [COLL])
    if not PROMPT_RE.match(prompt):
        return (unlocked, prompt), None, 0.0
    rule = MatchRule(type="signal", interface=PROMPT_IF, member="Completed", path=prompt)

    def start():
        if dismiss:
            c.call(prompt, PROMPT_IF, "Dismiss", "")
        else:
            c.call(prompt, PROMPT_IF, "Prompt", "s", "")
        if unlock_cmd:
            subprocess.Popen(["/bin/sh", "-c", unlock_cmd])

    msg, secs = c.wait_signal(rule, start, timeout)
    return (unlocked, prompt), (msg.body if msg else None), secs


def cmd_prompt(a):
    c = Client()
    c.open_dh()
    if a.mode == "timeout":
        (unlocked, prompt), body, secs = prompt_run(c, "Prompt", a.timeout + 8)
        check(unlocked == [] and PROMPT_RE.match(prompt),
              "locked: Service.Unlock([collection]) returns ([], a prompt path)", "%r %r" % (unlocked, prompt))
        check(body == (True, ("ao", [])) and a.timeout - 0.5 <= secs <= a.timeout + 4,
              "Prompt.Prompt(\"\") with nobody unlocking: Completed(dismissed=true, ao []) after the %d s prompt timeout (%.1f s)" % (a.timeout, secs),
              "body %r after %.2f s" % (body, secs))
    elif a.mode == "dismiss":
        (unlocked, prompt), body, secs = prompt_run(c, "Dismiss", a.timeout + 8, dismiss=True)
        check(body == (True, ("ao", [])) and secs < 1.5,
              "Prompt.Dismiss(): Completed(dismissed=true, ao []) at once (%.2f s)" % secs, "body %r after %.2f s" % (body, secs))
    else:
        (unlocked, prompt), body, secs = prompt_run(c, "Prompt", a.timeout + 8, unlock_cmd=a.unlock_cmd)
        check(body is not None and body[0] is False and body[1][0] == "ao" and COLL in body[1][1] and secs < a.timeout,
              "Prompt.Prompt(\"\") while `secureroom-vault unlock --stdin` runs 1 s later: Completed(dismissed=false, [collection]) before the timeout (%.1f s)" % secs,
              "body %r after %.2f s" % (body, secs))
        got = c.outcome(a.item, ITEM_IF, "GetSecret", "o", c.session)
        ok = got[0] == "ok" and c.decode(got[1][0])[0] == a.value.encode()
        check(ok, "after that unlock, Item.GetSecret returns the value again", repr(got)[:200])


def cmd_lock(a):
    """Service.Lock of an unlocked vault: the reply, PropertiesChanged on the collection
    (Locked true, Items invalidated, as libsecret's proxies cache both), then IsLocked."""
    c = Client()
    rule = MatchRule(type="signal", interface="org.freedesktop.DBus.Properties", member="PropertiesChanged", path=COLL)
    c.bus.AddMatch(rule)
    from collections import deque
    queue = deque(maxlen=100)
    with c.conn.filter(rule, queue=queue):
        res = c.outcome(SP, SERVICE_IF, "Lock", "ao", [COLL])
        deadline = time.monotonic() + 5
        while not any(m.body[1].get("Locked") == ("b", True) for m in queue) and time.monotonic() < deadline:
            try:
                c.conn.recv_messages(timeout=0.2)
            except TimeoutError:
                pass
        changes = [m.body for m in queue]
    check(res == ("ok", [[COLL], "/"]), "Service.Lock([collection]) returns ([collection], \"/\")", repr(res))
    want = ("org.freedesktop.Secret.Collection", {"Locked": ("b", True)}, ["Items"])
    # The vault was unlocked by the tool since the provider last looked: that change may come first.
    check(changes[-1:] == [want] and all(m[0] == want[0] and m[2] == ["Items"] for m in changes),
          "Service.Lock emits PropertiesChanged(Collection, {Locked: true}, [Items]) on the collection",
          repr(changes)[:300])
    c.open_plain()
    got = c.outcome(a.item, ITEM_IF, "GetSecret", "o", c.session)
    check(got == ("error", E_LOCKED), "after Service.Lock, Item.GetSecret answers %s" % E_LOCKED, repr(got))


def cmd_get(a):
    """Expect one outcome of Item.GetSecret: the value, or an error name."""
    c = Client()
    c.open_dh()
    got = c.outcome(a.item, ITEM_IF, "GetSecret", "o", c.session)
    if a.error:
        check(got == ("error", a.error), a.desc, repr(got))
    else:
        check(got[0] == "ok" and c.decode(got[1][0])[0] == a.value.encode(), a.desc, repr(got)[:200])


def raw_invalid_utf8(c):
    """CreateItem whose Label string holds invalid UTF-8, the bytes edited after
    marshalling (no D-Bus library will send that). Returns what came back."""
    marker = "QQQQ-UTF8-QQQQQQ"
    bad = b"bad \xff\xfe\xc0\x80 label!!"
    bad = bad[:len(marker)].ljust(len(marker), b"!")
    msg = c.create_msg(marker, {"e2e": "badutf8"}, b"must not be stored")
    serial = next(c.conn.outgoing_serial)
    data = msg.serialise(serial=serial)
    assert data.count(marker.encode()) == 1
    data = data.replace(marker.encode(), bad)
    try:
        c.conn.sock.sendall(data)
        while True:
            m = c.conn.receive(timeout=10)
            if m.header.fields.get(HeaderFields.reply_serial) == serial:
                if m.header.message_type == MessageType.error:
                    return "error reply " + str(m.header.fields.get(HeaderFields.error_name))
                return "method return %r" % (m.body,)
    except TimeoutError:
        return "no reply"
    except (ConnectionError, OSError, EOFError) as e:
        return "connection closed by the bus (%s)" % type(e).__name__


def cmd_bad(a):
    """Bad input: each answered with the contract's D-Bus error, the provider still up."""
    c = Client()
    owner = c.bus.GetNameOwner(SS)[0]
    c.open_plain()
    items_before = set(c.items())
    made = {}

    def case(desc, got, want):
        alive, why = provider_alive(c, a.pid, owner)
        check(got == ("error", want) and alive, "%s: %s, provider still running" % (desc, want),
              "got %r; alive %s %s" % (got, alive, why))

    def create(label, attrs, value, secret=None):
        return c.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b",
                         {LABEL: ("s", label), ATTRS: ("a{ss}", attrs)}, secret or c.secret(value), False)

    # Values.
    case("CreateItem with a value of 1 MiB + 1 byte", create("e2e big", {"e2e": "big"}, b"v" * (MIB + 1)), E_INVALID)
    case("CreateItem with a 16 MiB value", create("e2e huge", {"e2e": "huge"}, os.urandom(16 * MIB)), E_INVALID)
    exact = random.Random(1).randbytes(MIB)
    got = create("e2e exactly 1 MiB", {"e2e": "mib"}, exact)
    ok = got[0] == "ok" and c.get_secret(got[1][0])[0] == exact
    check(ok, "CreateItem with a value of exactly 1 MiB is accepted and reads back byte for byte", repr(got)[:200])
    if ok:
        made[got[1][0]] = exact
    case("Item.SetSecret of 1 MiB + 1 byte on an existing item", c.outcome(a.item, ITEM_IF, "SetSecret", "(oayays)", c.secret(b"x" * (MIB + 1))), E_INVALID)
    # Labels and attributes.
    case("CreateItem with a label of 1025 bytes", create("L" * 1025, {"e2e": "longlabel"}, b"v"), E_INVALID)
    got = create("\u00e9" * 512, {"e2e": "label1024"}, b"label of 1024 bytes")
    ok = got[0] == "ok" and c.prop(got[1][0], ITEM_IF, "Label") == "\u00e9" * 512
    check(ok, "CreateItem with a label of exactly 1024 bytes (512 x U+00E9) is accepted and kept", repr(got)[:200])
    if ok:
        made[got[1][0]] = b"label of 1024 bytes"
    case("CreateItem with 65 attributes", create("e2e attrs", {"a%02d" % k: "v" for k in range(65)}, b"v"), E_INVALID)
    case("CreateItem with an attribute value of 1025 bytes", create("e2e attr", {"e2e": "a" * 1025}, b"v"), E_INVALID)
    case("CreateItem with an attribute name of 1025 bytes", create("e2e attr", {"n" * 1025: "v"}, b"v"), E_INVALID)
    case("Set Label of 1025 bytes on an existing item",
         c.outcome(a.item, PROPS_IF, "Set", "ssv", ITEM_IF, "Label", ("s", "L" * 1025)), E_INVALID)
    # Wrong types.
    got = c.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b",
                    {LABEL: ("ay", b"bad \xff\xfe label"), ATTRS: ("a{ss}", {"e2e": "aylabel"})}, c.secret(b"v"), False)
    case("CreateItem whose Label is a byte array with invalid UTF-8 (variant ay, not s)", got, E_INVALID)
    case("CreateItem with the wrong signature (s)", c.outcome(COLL, COLL_IF, "CreateItem", "s", "hello"), E_INVALID)
    case("Item.GetSecret with the wrong signature (s)", c.outcome(a.item, ITEM_IF, "GetSecret", "s", "hello"), E_INVALID)
    # Invalid UTF-8 in a string: sent by hand on a connection of its own.
    raw = Client()
    raw.open_plain()
    what = raw_invalid_utf8(raw)
    alive, why = provider_alive(c, a.pid, owner)
    check(not what.startswith("method return") and alive,
          "CreateItem with invalid UTF-8 bytes in the Label string (raw message): refused (%s), provider still running" % what,
          "%s; alive %s %s" % (what, alive, why))
    try:
        raw.close()
    except Exception:
        pass
    # Objects and sessions.
    zero = COLL + "/" + "0" * 64
    case("Item.GetSecret on an unknown item .../collection/login/<64 zeros>",
         c.outcome(zero, ITEM_IF, "GetSecret", "o", c.session), E_NOOBJECT)
    case("Item.Delete on that unknown item", c.outcome(zero, ITEM_IF, "Delete", ""), E_NOOBJECT)
    case("Item.GetSecret on .../collection/login/not_an_item",
         c.outcome(COLL + "/not_an_item", ITEM_IF, "GetSecret", "o", c.session), E_NOOBJECT)
    case("Collection.SearchItems on an unknown collection .../collection/nosuch",
         c.outcome(SP + "/collection/nosuch", COLL_IF, "SearchItems", "a{ss}", {"e2e": "x"}), E_NOOBJECT)
    case("Item.GetSecret with a session path that does not exist (.../session/987654)",
         c.outcome(a.item, ITEM_IF, "GetSecret", "o", SP + "/session/987654"), E_NOSESSION)
    case("Service.GetSecrets with a session path that does not exist",
         c.outcome(SP, SERVICE_IF, "GetSecrets", "aoo", [a.item], SP + "/session/987654"), E_NOSESSION)
    other = Client()
    theirs = other.open_plain()
    case("Item.GetSecret with a session opened by another bus connection",
         c.outcome(a.item, ITEM_IF, "GetSecret", "o", theirs), E_NOSESSION)
    case("CreateItem with a secret in a session opened by another bus connection",
         create("e2e other session", {"e2e": "othersession"}, b"v", secret=(theirs, b"", b"v", "text/plain")), E_NOSESSION)
    closed = Client()
    mine = closed.open_plain()
    closed.call(mine, SESSION_IF, "Close", "")
    case("Item.GetSecret with a session already closed (Session.Close)",
         closed.outcome(a.item, ITEM_IF, "GetSecret", "o", mine), E_NOSESSION)
    got = other.outcome(a.item, ITEM_IF, "GetSecret", "o", theirs)
    check(got[0] == "ok" and bytes(got[1][0][2]) == a.value.encode(),
          "the other connection's own session still works for it (GetSecret returns the value)", repr(got)[:200])
    # Algorithms and DH parameters.
    case("OpenSession with an unknown algorithm (dh-ietf2048-sha256-aes256-cbc-pkcs7)",
         c.outcome(SP, SERVICE_IF, "OpenSession", "sv", "dh-ietf2048-sha256-aes256-cbc-pkcs7", ("ay", b"\x02" * 256)), E_NOTSUP)
    case("OpenSession with algorithm \"\"", c.outcome(SP, SERVICE_IF, "OpenSession", "sv", "", ("s", "")), E_NOTSUP)
    case("OpenSession DH with a 129-byte public key", c.outcome(SP, SERVICE_IF, "OpenSession", "sv", DH, ("ay", b"\x05" * 129)), E_INVALID)
    case("OpenSession DH with an empty public key", c.outcome(SP, SERVICE_IF, "OpenSession", "sv", DH, ("ay", b"")), E_INVALID)
    case("OpenSession DH with the public key as a string (variant s)", c.outcome(SP, SERVICE_IF, "OpenSession", "sv", DH, ("s", "AAAA")), E_INVALID)
    dh = Client()
    dh.open_dh()
    case("CreateItem in a DH session with an 8-byte IV",
         dh.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b", {LABEL: ("s", "e2e iv"), ATTRS: ("a{ss}", {"e2e": "iv"})},
                    (dh.session, b"\x00" * 8, b"\x00" * 16, "text/plain"), False), E_INVALID)
    iv = os.urandom(16)
    case("CreateItem in a DH session whose ciphertext has wrong PKCS#7 padding",
         dh.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b", {LABEL: ("s", "e2e pad"), ATTRS: ("a{ss}", {"e2e": "pad"})},
                    (dh.session, iv, aes_raw_encrypt(dh.aes, iv, b"A" * 15 + b"\x00"), "text/plain"), False), E_INVALID)
    case("CreateItem in a DH session with a ciphertext of 15 bytes (not whole blocks)",
         dh.outcome(COLL, COLL_IF, "CreateItem", "a{sv}(oayays)b", {LABEL: ("s", "e2e len"), ATTRS: ("a{ss}", {"e2e": "len"})},
                    (dh.session, iv, b"\x00" * 15, "text/plain"), False), E_INVALID)
    # Nothing stored by the refused calls; the accepted ones are removed again.
    after = set(c.items())
    extra = after - items_before - set(made)
    check(not extra and items_before <= after,
          "no item was created by a refused call and none lost (%d items before, %d after, %d accepted on purpose)" % (len(items_before), len(after), len(made)),
          "extra %r, lost %d" % (sorted(extra)[:3], len(items_before - after)))
    for p in made:
        c.call(p, ITEM_IF, "Delete", "")
    check(set(c.items()) == items_before, "the accepted boundary items deleted again (Item.Delete)", "")
    for x in (other, closed, dh, c):
        x.close()


def cmd_dh_edge(a):
    """DH public keys as real clients send them: SecretStorage and libsecret write the key
    without leading zero bytes, so about one key in 256 is shorter than 128 bytes; a
    zero-padded 128-byte form is the same number. Both must work. Values outside 2..p-2
    are not keys (InvalidArgs)."""
    from secretstorage.dhcrypto import DH_PRIME_1024, Session, int_to_bytes
    while True:
        s = Session()
        if s.my_public_key < 1 << 1016:
            break
    for form, pub in (("%d-byte (leading zero dropped)" % len(int_to_bytes(s.my_public_key)), int_to_bytes(s.my_public_key)),
                      ("128-byte zero-padded", s.my_public_key.to_bytes(128, "big"))):
        c = Client()
        got = c.outcome(SP, SERVICE_IF, "OpenSession", "sv", DH, ("ay", pub))
        ok = got[0] == "ok" and got[1][0][0] == "ay"
        if ok:
            s.set_server_public_key(int.from_bytes(got[1][0][1], "big"))
            c.session, c.aes = got[1][1], s.aes_key
            value = ("DH round trip with a %s public key" % form).encode()
            item, _ = c.create("e2e dh " + form, {"e2e": "dh-edge", "form": form}, value, replace=True)
            back = c.get_secret(item)[0]
            ok = back == value
            if ok:
                save_map(a.map, {item: value})
        why = "as SecretStorage and libsecret send 1 time in 256" if len(pub) < 128 else "the same number"
        check(ok, "OpenSession %s with a %s public key (%s) works: CreateItem then GetSecret round trip" % (DH, form, why),
              repr(got)[:300])
        c.close()
    c = Client()
    owner = c.bus.GetNameOwner(SS)[0]
    for what, pub in (("0", b"\x00" * 128), ("1", (1).to_bytes(128, "big")), ("p - 1", (DH_PRIME_1024 - 1).to_bytes(128, "big")),
                      ("p", DH_PRIME_1024.to_bytes(128, "big")), ("2^1024 - 1", b"\xff" * 128)):
        got = c.outcome(SP, SERVICE_IF, "OpenSession", "sv", DH, ("ay", pub))
        alive, why = provider_alive(c, a.pid, owner)
        check(got == ("error", E_INVALID) and alive,
              "OpenSession DH with the public key %s (not a key of the group): %s, provider still running" % (what, E_INVALID),
              "got %r; alive %s %s" % (got, alive, why))
    c.close()


def cmd_signals(a):
    """The collection's signals (ItemCreated, ItemChanged, ItemDeleted) and titles made
    unique: two items labelled alike are "LABEL" and "LABEL (2)" in the vault, an empty
    label is "untitled"."""
    c = Client()
    c.open_plain()
    rule = MatchRule(type="signal", interface=COLL_IF, path=COLL)
    c.bus.AddMatch(rule)
    from collections import deque
    queue = deque(maxlen=1000)
    seen = []
    with c.conn.filter(rule, queue=queue):
        item, _ = c.create("e2e signals", {"e2e": "signals"}, b"first")
        c.call(item, ITEM_IF, "SetSecret", "(oayays)", c.secret(b"second"))
        c.call(item, ITEM_IF, "Delete", "")
        deadline = time.monotonic() + 5
        while len([m for m in queue]) < 3 and time.monotonic() < deadline:
            try:
                c.conn.recv_messages(timeout=0.2)
            except TimeoutError:
                pass
        seen = [(m.header.fields.get(HeaderFields.member), m.body[0]) for m in queue]
    want = [("ItemCreated", item), ("ItemChanged", item), ("ItemDeleted", item)]
    check(seen == want, "collection signals: CreateItem -> ItemCreated(item), SetSecret -> ItemChanged(item), Delete -> ItemDeleted(item)",
          "seen %r" % (seen,))
    gone = c.outcome(item, ITEM_IF, "GetSecret", "o", c.session)
    check(gone == ("error", E_NOOBJECT), "after Item.Delete, the item's path answers %s" % E_NOOBJECT, repr(gone))
    made = {}
    for n, attrs in ((1, {"e2e": "samelabel", "n": "1"}), (2, {"e2e": "samelabel", "n": "2"})):
        item, _ = c.create("e2e same label", attrs, b"same label value %d" % n)
        made[item] = b"same label value %d" % n
    item, _ = c.create("", {"e2e": "nolabel"}, b"no label value")
    made[item] = b"no label value"
    labels = sorted(c.prop(p, ITEM_IF, "Label") for p in made)
    check(labels == ["", "e2e same label", "e2e same label"],
          "two items created with the same label keep it as their Label; an empty label stays \"\"", repr(labels))
    save_map(a.map, made)


def cmd_verify(a):
    """Everything stored so far still reads back right (GetSecrets, DH session)."""
    c = Client()
    c.open_dh()
    total = {}
    for path in a.maps:
        total.update(load_map(path))
    got = c.get_secrets(list(total))
    bad = [p for p in total if got.get(p) != total[p]]
    check(not bad, "nothing lost: all %d items stored over D-Bus during the test read back right (GetSecrets, DH)" % len(total),
          "%d wrong or missing, e.g. %r" % (len(bad), bad[:2]))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("shape")
    for name in ("secretstorage", "gi", "plain"):
        sub.add_parser(name).add_argument("--map", required=True)
    s = sub.add_parser("bulk")
    s.add_argument("--prefix", required=True); s.add_argument("--count", type=int, required=True)
    s.add_argument("--map", required=True); s.add_argument("--algo", default="plain"); s.add_argument("--window", type=int, default=64)
    s = sub.add_parser("bulk-check")
    s.add_argument("--prefix", required=True); s.add_argument("--count", type=int, required=True)
    s.add_argument("--map", required=True); s.add_argument("--seed", type=int, default=4711)
    s = sub.add_parser("writer")
    s.add_argument("--prefix", required=True); s.add_argument("--count", type=int, required=True)
    s.add_argument("--map", required=True); s.add_argument("--start", required=True); s.add_argument("--algo", default="plain")
    s = sub.add_parser("writers-check")
    s.add_argument("--prefixes", nargs="+", required=True); s.add_argument("--maps", nargs="+", required=True)
    s.add_argument("--count", type=int, required=True); s.add_argument("--snapshot", required=True); s.add_argument("--cli", type=int, required=True)
    sub.add_parser("snapshot").add_argument("--out", required=True)
    sub.add_parser("item-of").add_argument("attrs", nargs="+")
    sub.add_parser("locked").add_argument("--item", required=True)
    s = sub.add_parser("prompt")
    s.add_argument("--mode", choices=("timeout", "dismiss", "unlock"), required=True)
    s.add_argument("--timeout", type=int, required=True); s.add_argument("--unlock-cmd")
    s.add_argument("--item"); s.add_argument("--value")
    sub.add_parser("lock").add_argument("--item", required=True)
    s = sub.add_parser("get")
    s.add_argument("--item", required=True); s.add_argument("--value"); s.add_argument("--error"); s.add_argument("--desc", required=True)
    s = sub.add_parser("bad")
    s.add_argument("--pid", type=int, required=True); s.add_argument("--item", required=True); s.add_argument("--value", required=True)
    sub.add_parser("verify").add_argument("--maps", nargs="+", required=True)
    s = sub.add_parser("dh-edge")
    s.add_argument("--pid", type=int, required=True); s.add_argument("--map", required=True)
    sub.add_parser("signals").add_argument("--map", required=True)
    a = p.parse_args()
    fn = globals()["cmd_" + a.cmd.replace("-", "_")]
    try:
        return fn(a) or 0
    except Exception:
        traceback.print_exc()
        return 2


if __name__ == "__main__":
    sys.exit(main())
