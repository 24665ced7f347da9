// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import SecureRoomCore
import XCTest

/// Which `PAM_RHOST` values are this machine (`LocalHost`, docs/DESIGN.md §7), for a host
/// described by its name, /etc/hosts and /etc/resolv.conf. Regression (third red team,
/// F4): this host's name followed by any domain counted as local.
final class LocalHostTests: XCTestCase {
    let host = LocalHost(
        hostname: "srbox",
        hosts: """
            127.0.0.1\tlocalhost
            127.0.1.1\tsrbox.corp.example srbox   # the installer's line
            ::1\tlocalhost ip6-localhost ip6-loopback
            192.0.2.9\tsrbox.lab.example.net srbox-lab
            """)

    func testTheHostsOwnNamesInAnySpellingAreLocal() {
        XCTAssertEqual(host.shortName, "srbox")
        XCTAssertEqual(host.qualifiedNames, ["srbox.corp.example"])
        for name in ["srbox", "SRBOX", "srbox.", "SrBox.Corp.Example", "srbox.corp.example."] {
            XCTAssertTrue(host.isLocal(name), name)
        }
    }

    func testLoopbackNamesAndAddressesAreLocal() {
        for name in [
            "", "localhost", "LOCALHOST.", "localhost.localdomain", "ip6-localhost", "ip6-loopback", "127.0.0.1",
            "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1", "::FFFF:7f00:1",
        ] {
            XCTAssertTrue(host.isLocal(name), name)
        }
    }

    func testLookalikesAndOtherHostsAreRemote() {
        for name in [
            "srbox.evil.example", "SRBOX.attacker.net", "srbox.corp.example.evil.net", "srbox.corp",
            "srbox.office.example",  // a DHCP server's search domain is not this host's
            "srbox-lab", "srbox.lab.example.net",  // a line of /etc/hosts without this host's name
            "srboxx", "xsrbox", "srbox..", "srbox.corp.example..", " srbox", "srbox\tx",
            // IDN: punycode, UTF-8, a Cyrillic x
            "srbox.xn--exmple-cua.example", "srbox.exämple.example", "srbo\u{0445}",
            "203.0.113.7", "::ffff:198.51.100.2", "2001:db8::1", "192.0.2.9",
            "127.1", "0x7f.0.0.1", "2130706433", "0177.0.0.1", "127.0.0.1.evil.example",
        ] {
            XCTAssertFalse(host.isLocal(name), name)
        }
    }

    /// Unicode case folding would turn U+212A KELVIN SIGN into "k": a name with any
    /// non-ASCII byte is remote, whatever it folds to.
    func testNoUnicodeCaseFoldingReachesTheHostsName() {
        let desk = LocalHost(hostname: "desk", hosts: "")
        XCTAssertTrue(desk.isLocal("DESK"))
        XCTAssertFalse(desk.isLocal("DES\u{212A}"))
        XCTAssertFalse(desk.isLocal("desk.example.org"), "no domain is known: only the bare name is local")
    }

    /// The domain comes from a qualified host name and /etc/hosts only; "." alone (the DNS
    /// root) is remote, only an empty PAM_RHOST is local.
    func testTheDomainComesFromTheHostNameAndHostsOnly() {
        let qualified = LocalHost(hostname: "srbox.corp.example", hosts: "")
        XCTAssertEqual(qualified.shortName, "srbox")
        XCTAssertTrue(qualified.isLocal("srbox"))
        XCTAssertTrue(qualified.isLocal("SRBOX.CORP.EXAMPLE"))
        XCTAssertFalse(qualified.isLocal("srbox.example"))
        XCTAssertTrue(qualified.isLocal(""))
        XCTAssertFalse(qualified.isLocal("."), "the DNS root names no host")
        XCTAssertFalse(qualified.isLocal(".."))
        let unknown = LocalHost(hostname: "", hosts: "127.0.1.1 srbox.corp.example srbox")
        XCTAssertFalse(unknown.isLocal("srbox.corp.example"), "without a host name only loopback is local")
        XCTAssertTrue(unknown.isLocal("localhost"))
    }
}
