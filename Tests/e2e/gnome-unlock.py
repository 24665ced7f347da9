#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Tests/e2e/gnome-unlock.py — GNOME's unlock, driven and read for Tests/e2e/gnome.sh.

    gnome-unlock.py verify [--service NAME] [--timeout S] USER ANSWERS-FILE
    gnome-unlock.py texts
    gnome-unlock.py watch

verify: one verification through GDM's reauthentication channel, the path GNOME Shell's
  unlock dialog takes, without the shell. Run as USER in a systemd-logind session of USER
  (GDM asks logind for the caller's session and refuses a caller without one). On the
  system bus: org.gnome.DisplayManager.Manager.OpenReauthenticationChannel(USER); on the
  private address it returns, /org/gnome/DisplayManager/Session's
  org.gnome.DisplayManager.UserVerifier.BeginVerificationForUser(SERVICE, USER) (SERVICE:
  gdm-password, as the unlock dialog asks). gdm-session-worker, as root, runs that PAM
  stack; each SecretInfoQuery or InfoQuery (a prompt) is answered through AnswerQuery
  with the next line of ANSWERS-FILE (an empty line: Enter in an empty field), as the
  dialog answers with what its one entry holds. A prompt with no line left cancels.
  Prints one line per event, in order, with GDM's texts exactly:
      secret<TAB>TEXT       an echo-off prompt          query<TAB>TEXT    an echo-on prompt
      info<TAB>TEXT         a PAM_TEXT_INFO message     problem<TAB>TEXT  a PAM_ERROR_MSG
      unavailable<TAB>TEXT  the service cannot run      answered<TAB>N    answer N was sent
      complete              VerificationComplete        failed            VerificationFailed
      cancelled             a prompt with no answer left (Cancel was called)
      timeout               nothing decided within S seconds (default 30)
  Exit status: 0 complete, 1 failed or unavailable, 3 cancelled or timed out, 2 the
  channel could not be opened or the verification begun (the reason on standard error).

texts: what GNOME Shell shows now, as its accessibility tree (AT-SPI) tells it: one line
  per showing label ("label<TAB>NAME") and entry ("entry<TAB>ROLE<TAB>HINT<TAB>TEXT<TAB>
  STATES": HINT the name of what describes it, an St entry's hint, which is the placeholder
  the unlock dialog sets from the prompt; TEXT as it holds it; STATES "sensitive" or
  "insensitive", then ",focused" if it has the keyboard), in the tree's order.

watch: GNOME Shell's AT-SPI events, one line each as they come, until killed:
  "SECONDS<TAB>EVENT<TAB>ROLE<TAB>NAME<TAB>DETAIL" (name changes with the new name, text
  insertions, showing and focus changes with 1 or 0). A module's message that the unlock dialog shows for half a second
  is caught here even when a `texts` poll misses it.

texts and watch run as the session's user, on its session bus
(DBUS_SESSION_BUS_ADDRESS; at-spi2-core's accessibility bus is found through it) and
display. Their exit status: 0, 2 if AT-SPI cannot be reached.
"""
import argparse
import sys
import time

APPLICATION = "gnome-shell"


# ---- verify ------------------------------------------------------------------------------
def verify(options):
    try:
        from gi.repository import Gio, GLib
    except ImportError as error:  # python3-gi is missing
        print(f"gnome-unlock: {error}", file=sys.stderr)
        return 2
    session_path = "/org/gnome/DisplayManager/Session"
    verifier = "org.gnome.DisplayManager.UserVerifier"
    with open(options.answers, encoding="utf-8") as stream:
        answers = stream.read().split("\n")
    if answers and answers[-1] == "":
        answers.pop()  # the file's last newline

    try:
        system = Gio.bus_get_sync(Gio.BusType.SYSTEM, None)
        (address,) = system.call_sync(
            "org.gnome.DisplayManager", "/org/gnome/DisplayManager/Manager",
            "org.gnome.DisplayManager.Manager", "OpenReauthenticationChannel",
            GLib.Variant("(s)", (options.user,)), GLib.VariantType("(s)"),
            Gio.DBusCallFlags.NONE, 10000, None).unpack()
        peer = Gio.DBusConnection.new_for_address_sync(
            address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT, None, None)
    except GLib.Error as error:
        print(f"gnome-unlock: could not open the reauthentication channel: {error.message}", file=sys.stderr)
        return 2

    loop = GLib.MainLoop()
    state = {"status": 3, "answered": 0}

    def say(*fields):
        print("\t".join(fields), flush=True)

    def call(method, parameters):
        peer.call(None, session_path, verifier, method, parameters, None,
                  Gio.DBusCallFlags.NONE, 10000, None, None)

    def finish(status):
        state["status"] = status
        loop.quit()

    def on_signal(_connection, _sender, _path, _interface, name, parameters):
        values = parameters.unpack()
        if name in ("SecretInfoQuery", "InfoQuery"):
            service, text = values
            say("secret" if name == "SecretInfoQuery" else "query", text)
            if not answers:
                say("cancelled")
                call("Cancel", None)
                finish(3)
                return
            state["answered"] += 1
            say("answered", str(state["answered"]))
            call("AnswerQuery", GLib.Variant("(ss)", (service, answers.pop(0))))
        elif name == "Info":
            say("info", values[1])
        elif name == "Problem":
            say("problem", values[1])
        elif name == "ServiceUnavailable":
            say("unavailable", values[1])
            finish(1)
        elif name == "VerificationComplete":
            say("complete")
            finish(0)
        elif name == "VerificationFailed":
            say("failed")
            finish(1)

    peer.signal_subscribe(None, verifier, None, session_path, None, Gio.DBusSignalFlags.NONE, on_signal)

    def on_timeout():
        say("timeout")
        finish(3)
        return False

    GLib.timeout_add(int(options.timeout * 1000), on_timeout)
    try:
        peer.call_sync(None, session_path, verifier, "BeginVerificationForUser",
                       GLib.Variant("(ss)", (options.service, options.user)), None,
                       Gio.DBusCallFlags.NONE, 10000, None)
    except GLib.Error as error:
        print(f"gnome-unlock: BeginVerificationForUser failed: {error.message}", file=sys.stderr)
        return 2
    loop.run()
    try:
        peer.close_sync(None)
    except GLib.Error:
        pass
    return state["status"]


# ---- texts, watch ---------------------------------------------------------------------------
def atspi():
    try:
        import pyatspi
    except ImportError as error:  # python3-pyatspi is missing
        print(f"gnome-unlock: {error}", file=sys.stderr)
        sys.exit(2)
    return pyatspi


def one_line(text):
    return " ".join((text or "").split("\n"))


def entry_text(accessible):
    try:
        text = accessible.queryText()
        return text.getText(0, text.characterCount)
    except Exception:  # no Text interface
        return ""


def described_by(pyatspi, accessible):
    """The names of what ACCESSIBLE is described by: an St entry's hint, its placeholder."""
    names = []
    try:
        for relation in accessible.getRelationSet():
            if relation.getRelationType() == pyatspi.RELATION_DESCRIBED_BY:
                names += [one_line(relation.getTarget(i).name) for i in range(relation.getNTargets())]
    except Exception:  # no relations
        pass
    return "|".join(names)


def texts(_options):
    pyatspi = atspi()
    entries = (pyatspi.ROLE_PASSWORD_TEXT, pyatspi.ROLE_ENTRY)

    def walk(accessible, depth):
        if accessible is None or depth > 60:
            return
        if not accessible.getState().contains(pyatspi.STATE_SHOWING):
            return
        role = accessible.getRole()
        if role == pyatspi.ROLE_LABEL:
            print(f"label\t{one_line(accessible.name)}")
            return  # its child is the label's text again
        if role in entries:
            state = accessible.getState()
            states = "sensitive" if state.contains(pyatspi.STATE_SENSITIVE) else "insensitive"
            if state.contains(pyatspi.STATE_FOCUSED):
                states += ",focused"
            print(f"entry\t{accessible.getRoleName()}\t{described_by(pyatspi, accessible)}"
                  f"\t{one_line(entry_text(accessible))}\t{states}")
        for index in range(accessible.childCount):
            walk(accessible.getChildAtIndex(index), depth + 1)

    try:
        for application in pyatspi.Registry.getDesktop(0):
            if application is not None and application.name == APPLICATION:
                for index in range(application.childCount):
                    walk(application.getChildAtIndex(index), 0)
    except Exception as error:  # the bus or the shell went away mid-walk
        print(f"gnome-unlock: {error}", file=sys.stderr)
        return 2
    return 0


def watch(_options):
    pyatspi = atspi()
    start = time.monotonic()

    def on_event(event):
        try:
            source = event.source
            application = source.getApplication()
            if application is None or application.name != APPLICATION:
                return
            role = source.getRoleName()
            name = one_line(source.name)
            if str(event.type).startswith("object:state-changed"):
                detail = str(event.detail1)  # 1: became showing (focused), 0: no longer
            else:
                detail = event.any_data if isinstance(event.any_data, str) else ""
            print(f"{time.monotonic() - start:.2f}\t{event.type}\t{role}\t{name}\t{one_line(str(detail))}",
                  flush=True)
        except Exception:  # the source went away
            pass

    try:
        pyatspi.Registry.registerEventListener(
            on_event, "object:property-change:accessible-name", "object:text-changed",
            "object:state-changed:showing", "object:state-changed:focused")
        print(f"{0:.2f}\twatching\t\t\t", flush=True)
        pyatspi.Registry.start()
    except Exception as error:
        print(f"gnome-unlock: {error}", file=sys.stderr)
        return 2
    return 0


def main(arguments):
    parser = argparse.ArgumentParser(prog="gnome-unlock.py")
    commands = parser.add_subparsers(dest="command", required=True)
    verifying = commands.add_parser("verify")
    verifying.add_argument("--service", default="gdm-password")
    verifying.add_argument("--timeout", type=float, default=30.0)
    verifying.add_argument("user")
    verifying.add_argument("answers")
    commands.add_parser("texts")
    commands.add_parser("watch")
    options = parser.parse_args(arguments)
    return {"verify": verify, "texts": texts, "watch": watch}[options.command](options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
