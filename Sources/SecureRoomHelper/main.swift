// secureroom-helper: a non-root caller's own PIN check or change (HelperMain.swift).
import Glibc

exit(HelperMain.run(arguments: CommandLine.arguments).rawValue)
