#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Tests/e2e/atspi-dialog.py — what a graphical application's dialog shows, as its
accessibility tree (AT-SPI) tells it: the exact texts, no screenshot and no OCR.

    atspi-dialog.py APPLICATION TITLE
    atspi-dialog.py --fields APPLICATION

Run in the session whose bus the application uses (DBUS_SESSION_BUS_ADDRESS; at-spi2-core
starts the accessibility bus on it). For the first showing window of APPLICATION named
TITLE, prints one line per showing label ("label<TAB>TEXT") and per password field
("entry<TAB>sensitive" or "entry<TAB>insensitive"), in the tree's order; nothing if no such
window is showing. Used by Tests/e2e/polkit-agent.sh to read polkit-gnome's dialog: its
prompt ("PIN: ", "Password:"), the PAM messages it shows, and whether it waits for input.

With --fields, for APPLICATION's first showing window whatever its title (KDE Plasma's
lock screen greeter, kscreenlocker_greet, run with QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1): one
line per line of each showing, non-empty label ("label<TAB>TEXT": the greeter joins its
messages with newlines) and one per showing password field ("field<TAB>DESCRIPTION<TAB>
sensitive|insensitive<TAB>CHARACTERS": the description is the field's placeholder,
CHARACTERS how many bullets it holds; its children, which repeat them, are not read).
Used by Tests/e2e/kde.sh.
Exit status: 0, also when nothing is showing; 2 if AT-SPI cannot be reached.
"""
import sys

try:
    import pyatspi
except ImportError as error:  # python3-pyatspi is missing
    print(f"atspi-dialog: {error}", file=sys.stderr)
    sys.exit(2)


def showing(accessible):
    """Whether ACCESSIBLE is on screen now."""
    return accessible.getState().contains(pyatspi.STATE_SHOWING)


def lines(accessible):
    """The label and password-field lines of ACCESSIBLE's showing subtree."""
    if accessible is None or not showing(accessible):
        return
    role = accessible.getRole()
    if role == pyatspi.ROLE_LABEL:
        yield f"label\t{accessible.name}"
    elif role == pyatspi.ROLE_PASSWORD_TEXT:
        sensitive = accessible.getState().contains(pyatspi.STATE_SENSITIVE)
        yield "entry\t" + ("sensitive" if sensitive else "insensitive")
    for index in range(accessible.childCount):
        yield from lines(accessible.getChildAtIndex(index))


def field_lines(accessible):
    """--fields: the label lines and password fields of ACCESSIBLE's showing subtree."""
    if accessible is None or not showing(accessible):
        return
    role = accessible.getRole()
    if role == pyatspi.ROLE_LABEL and accessible.name:
        for line in accessible.name.split("\n"):
            yield f"label\t{line}"
    elif role == pyatspi.ROLE_PASSWORD_TEXT:
        state = accessible.getState()
        sensitive = "sensitive" if state.contains(pyatspi.STATE_SENSITIVE) else "insensitive"
        try:
            characters = accessible.queryText().characterCount
        except NotImplementedError:
            characters = -1
        yield f"field\t{accessible.description}\t{sensitive}\t{characters}"
        return  # its children repeat the placeholder and the bullets
    for index in range(accessible.childCount):
        yield from field_lines(accessible.getChildAtIndex(index))


def main(arguments):
    if len(arguments) == 2 and arguments[0] == "--fields":
        application_name, title, walk = arguments[1], None, field_lines
    elif len(arguments) == 2 and not arguments[0].startswith("-"):
        (application_name, title), walk = arguments, lines
    else:
        print("usage: atspi-dialog.py APPLICATION TITLE | --fields APPLICATION", file=sys.stderr)
        return 64
    try:
        desktop = pyatspi.Registry.getDesktop(0)
        for application in desktop:
            if application is None or application.name != application_name:
                continue
            for window in application:
                if window is not None and title in (None, window.name) and showing(window):
                    for line in walk(window):
                        print(line)
                    return 0
    except Exception as error:  # the bus or the application went away mid-walk
        print(f"atspi-dialog: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
