// secureroom-helper: a non-root caller's own PIN check, change or vault set-up (HelperMain.swift).
import Glibc

exit(HelperMain.run(arguments: CommandLine.arguments).rawValue)
