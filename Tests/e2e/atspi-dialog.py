#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 SecureRoom authors
# SPDX-License-Identifier: Apache-2.0
"""Tests/e2e/atspi-dialog.py — what a graphical application's dialog shows, as its
accessibility tree (AT-SPI) tells it: the exact texts, no screenshot and no OCR.

    atspi-dialog.py APPLICATION TITLE

Run in the session whose bus the application uses (DBUS_SESSION_BUS_ADDRESS; at-spi2-core
starts the accessibility bus on it). For the first showing window of APPLICATION named
TITLE, prints one line per showing label ("label<TAB>TEXT") and per password field
("entry<TAB>sensitive" or "entry<TAB>insensitive"), in the tree's order; nothing if no such
window is showing. Used by Tests/e2e/polkit-agent.sh to read polkit-gnome's dialog: its
prompt ("PIN: ", "Password:"), the PAM messages it shows, and whether it waits for input.
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


def main(arguments):
    if len(arguments) != 2:
        print("usage: atspi-dialog.py APPLICATION TITLE", file=sys.stderr)
        return 64
    application_name, title = arguments
    try:
        desktop = pyatspi.Registry.getDesktop(0)
        for application in desktop:
            if application is None or application.name != application_name:
                continue
            for window in application:
                if window is not None and window.name == title and showing(window):
                    for line in lines(window):
                        print(line)
                    return 0
    except Exception as error:  # the bus or the application went away mid-walk
        print(f"atspi-dialog: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
