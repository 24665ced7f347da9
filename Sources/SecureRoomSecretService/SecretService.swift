// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

import Glibc
import SecureRoomBase
import SecureRoomVault

/// The Secret Service provider (docs/DESIGN.md §14): owns org.freedesktop.secrets on the
/// user's session bus and serves the SecureRoom vault as its one collection.
///
/// Locked means locked: every request asks `vault.unlockedStore()`, which reads the data
/// key from the user's kernel keyring; when it is gone (timeout, last session closed,
/// `secureroom-vault lock`), the request finds the vault locked. Nothing of the vault is
/// kept between requests, and secrets never reach the disk outside its sealed rows.
public final class SecretService {
    /// How the provider reaches the vault; given by the tool, which knows the configuration.
    public struct Vault {
        /// The vault file.
        public let path: String
        /// The vault opened with the key in the keyring, or nil when it is locked.
        public let unlockedStore: () throws -> VaultStore?
        /// Removes the key from the keyring.
        public let lock: () throws -> Void

        /// The vault at `path`, opened and locked by these closures.
        public init(path: String, unlockedStore: @escaping () throws -> VaultStore?, lock: @escaping () throws -> Void)
        {
            self.path = path
            self.unlockedStore = unlockedStore
            self.lock = lock
        }
    }

    /// Why `run` returned.
    public enum Outcome: Equatable {
        /// A stop signal (SIGTERM, SIGINT, SIGHUP) or the end of the bus connection.
        case stopped
        /// Another connection owns org.freedesktop.secrets (who, as the bus says).
        case nameOwned(by: String)
    }

    /// The well-known name.
    public static let busName = "org.freedesktop.secrets"
    /// Sessions and prompts one client may hold at once, and all clients together.
    static let perClientLimit = 64
    static let sessionLimit = 4096
    static let promptLimit = 256
    /// Most objects one Unlock, Lock or GetSecrets call may name.
    static let pathLimit = 100_000
    /// Most bytes of secrets one GetSecrets reply may carry (sd-bus refuses 64 MiB arrays).
    static let replyLimit = 32 << 20
    /// How long a write waits for another writer (the CLI) before it fails: the loop
    /// serves every client, so it never waits SQLite's default 30 s.
    public static let busyTimeoutMilliseconds: Int32 = 5000

    private let vault: Vault
    private let promptTimeoutMilliseconds: Int64
    private let log: (String) -> Void
    private var connection: BusConnection?
    private var sessions: [String: TransferSession] = [:]
    private var prompts: [String: UnlockPrompt] = [:]
    private var serial = 0
    /// Whether the vault was locked at the last look (for PropertiesChanged).
    private var lastLocked: Bool?
    /// Until when no further desktop notification goes out (one per prompt wait).
    private var lastNotice: Deadline?
    /// Starts the PIN prompt (`secureroom-vault unlock --pinentry`) and returns its pid;
    /// nil: serve has no prompt of its own, and clients wait for `unlock` (docs/DESIGN.md §14).
    private let startUnlock: (() -> pid_t?)?
    /// The running PIN prompt, if any: one for every client that waits.
    private var unlockChild: pid_t?
    /// SearchItems calls that found the vault locked while a PIN prompt runs, answered
    /// when it unlocks the vault, or with IsLocked when it ends without or their wait ends.
    private var waitingSearches: [WaitingSearch] = []

    /// A search answered later.
    private struct WaitingSearch {
        let call: BusMessage
        let attributes: [String: String]
        let split: Bool
        let deadline: Deadline
    }

    /// How long a search waits for the PIN prompt: under the 25 s a GDBus client (libsecret)
    /// waits for a reply by default.
    static let searchWaitMilliseconds: Int64 = 20_000

    /// A provider over `vault`; an unlock prompt waits `promptTimeout` seconds; `log`
    /// receives one line per event (never a secret, a label or an attribute);
    /// `startUnlock`, when given, starts the PIN prompt (see its property).
    public init(
        vault: Vault, promptTimeout: Int64, startUnlock: (() -> pid_t?)? = nil, log: @escaping (String) -> Void
    ) {
        self.vault = vault
        promptTimeoutMilliseconds = promptTimeout * 1000
        self.startUnlock = startUnlock
        self.log = log
    }

    /// Connects, takes the name (or returns `nameOwned`), and serves until stopped.
    public func run() throws -> Outcome {
        let signals = try StopSignals()
        let connection = try BusConnection()
        self.connection = connection
        defer { self.connection = nil }
        try connection.handleCalls(under: SecretObject.servicePath) { [unowned self] call in handle(call) }
        try connection.handleSignals(
            from: "org.freedesktop.DBus", interface: "org.freedesktop.DBus", member: "NameOwnerChanged"
        ) {
            [unowned self] signal in forget(signal)
        }
        if case let .owned(owner) = try connection.request(name: Self.busName) { return .nameOwned(by: owner) }
        log("serving \(vault.path) as \(Self.busName)")
        try connection.run(
            signals: signals.unblocked, wake: { [unowned self] in watchPrompts() }, stop: { signals.received })
        connection.release(name: Self.busName)
        log("stopped")
        return .stopped
    }

    // MARK: dispatch

    private func handle(_ call: BusMessage) {
        guard let connection else { return }
        do {
            try dispatch(call, connection)
        } catch {
            let failure = Self.failure(for: error)
            if failure.name == BusFailure.failed("").name {
                // The log in English, whatever language the reply is in.
                log(
                    "\(call.interface).\(call.member) failed: \((error as? VaultError)?.description ?? failure.message)"
                )
            }
            connection.reply(to: call, failure: failure)
        }
    }

    /// Every error as the D-Bus error the client receives: the one mapping.
    static func failure(for error: Error) -> BusFailure {
        switch error {
        case let failure as BusFailure: return failure
        case let error as VaultError:
            switch error {
            case .locked: return .isLocked(error.localizedDescription)
            case .invalid: return .invalidArguments(error.localizedDescription)
            case .noSuchItem, .notFound: return .noSuchObject(error.localizedDescription)
            default: return .failed(error.localizedDescription)
            }
        default: return .failed("\(error)")
        }
    }

    /// Finds the method in the interface table (`SecretServiceInterfaces.swift`) and serves
    /// it: the common interfaces (introspection, properties) of any object when named; then,
    /// for an object that exists (a prompt: of this client), the interface of its kind.
    private func dispatch(_ call: BusMessage, _ connection: BusConnection) throws {
        let object = SecretObject(path: call.path)
        for interface in Self.common where call.interface == interface.name {
            if let method = try interface.method(for: call) { return try method.serve(self, call, object, connection) }
        }
        switch object {
        case .node, .unknown: throw BusFailure.noSuchObject("no object at \(call.path)")
        case .prompt(let path):
            guard prompts[path]?.owner == call.sender else {
                throw BusFailure.noSuchObject("no prompt \(path) for this client")
            }
        default: break
        }
        for interface in Self.interfaces(of: object) {
            if let method = try interface.method(for: call) { return try method.serve(self, call, object, connection) }
        }
        throw BusFailure.unknownMethod(
            "no method \(call.interface.isEmpty ? "" : call.interface + ".")\(call.member) with signature "
                + "(\(call.signature)) at \(call.path)")
    }

    // MARK: org.freedesktop.DBus.Introspectable

    func introspect(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        guard object != .unknown else { throw BusFailure.noSuchObject("no object at \(call.path)") }
        try connection.reply(to: call) { try $0.append(Introspection.xml(for: object)) }
    }

    // MARK: org.freedesktop.Secret.Service

    func searchItems(_ call: BusMessage, _ connection: BusConnection, split: Bool) throws {
        let attributes = try call.readStringDictionary()
        // Locked, with a PIN prompt of our own: the answer waits for the PIN (libsecret
        // searches before it would ask to unlock), and a locked vault is still not searched.
        if try currentStore() == nil, waitingSearches.count < Self.promptLimit, askForPIN() {
            waitingSearches.append(
                WaitingSearch(
                    call: call.retained(), attributes: attributes, split: split,
                    deadline: Deadline(millisecondsFromNow: Self.searchWaitMilliseconds)))
            return
        }
        try answer(search: call, attributes, split: split, connection)
    }

    /// The unlocked and (for the service) locked items found, or IsLocked.
    private func answer(
        search call: BusMessage, _ attributes: [String: String], split: Bool, _ connection: BusConnection
    ) throws {
        let found = try search(attributes)
        // The service answers unlocked and locked items apart (the vault has no locked
        // ones while it can be searched); the collection in one list.
        try connection.reply(to: call) {
            try $0.append(paths: found)
            if split { try $0.append(paths: []) }
        }
    }

    /// Starts the PIN prompt unless it runs; false if serve has none or it cannot start.
    private func askForPIN() -> Bool {
        if unlockChild != nil { return true }
        guard let startUnlock, let child = startUnlock() else { return false }
        unlockChild = child
        log("vault locked: asking for the PIN (pid \(child))")
        return true
    }

    func lock(_ call: BusMessage, _ connection: BusConnection) throws {
        let objects = try ourPaths(call.readPaths())
        _ = try? currentStore()  // an unlock since the last request is told first
        try vault.lock()
        noteLockState(locked: true)
        log("locked at the request of \(call.sender)")
        try connection.reply(to: call) {
            try $0.append(paths: objects)
            try $0.append("/", as: "o")
        }
    }

    func readAlias(_ call: BusMessage, _ connection: BusConnection) throws {
        let alias = try call.readString()
        try connection.reply(to: call) {
            try $0.append(SecretObject.aliases.contains(alias) ? SecretObject.collectionPath : "/", as: "o")
        }
    }

    func setAlias(_ call: BusMessage, _ connection: BusConnection) throws {
        let (alias, path) = (try call.readString(), try call.readString("o"))
        guard SecretObject.aliases.contains(alias), SecretObject(path: path) == .collection else {
            throw BusFailure.notSupported(
                "the aliases are fixed: \(SecretObject.aliases.joined(separator: " and ")) name the SecureRoom vault")
        }
        try connection.reply(to: call) { _ in }
    }

    func createCollection(_ call: BusMessage, _ connection: BusConnection) throws {
        try call.readPropertyDictionary { _ in false }
        let alias = try call.readString()
        guard SecretObject.aliases.contains(alias) else {
            throw BusFailure.notSupported(
                "this provider has one collection, the SecureRoom vault (alias \"default\"); it makes no others")
        }
        try connection.reply(to: call) {
            try $0.append(SecretObject.collectionPath, as: "o")
            try $0.append("/", as: "o")
        }
    }

    func openSession(_ call: BusMessage, _ connection: BusConnection) throws {
        let name = try call.readString()
        guard let algorithm = TransferSession.Algorithm(rawValue: name) else {
            throw BusFailure.notSupported(
                "the algorithm \"\(name)\" is not supported (plain, dh-ietf1024-sha256-aes128-cbc-pkcs7)")
        }
        guard sessions.count < Self.sessionLimit,
            sessions.values.filter({ $0.owner == call.sender }).count < Self.perClientLimit
        else {
            throw BusFailure.limitsExceeded(
                "a client may hold \(Self.perClientLimit) sessions at once, all clients \(Self.sessionLimit)")
        }
        let contents = try call.variantContents()
        let session: TransferSession
        var output: [UInt8]?
        switch algorithm {
        case .plain:
            guard contents == "s" else {
                throw BusFailure.invalidArguments("plain takes an empty string as input, not (\(contents))")
            }
            session = .plain(owner: call.sender)
        case .dhAES:
            guard contents == "ay" else {
                throw BusFailure.invalidArguments("\(name) takes the client's public key (ay), not (\(contents))")
            }
            try call.enter("v", "ay")
            let peer = try call.readBytes(atMost: 128, "a dh public key")
            try call.exit()
            (session, output) = try TransferSession.negotiate(owner: call.sender, peerPublicKey: peer)
        }
        serial += 1
        let path = SecretObject.sessionPrefix + String(serial)
        sessions[path] = session
        try connection.reply(to: call) { reply in
            if let output {
                try reply.container("v", "ay") { try output.withUnsafeBytes { try reply.append(bytes: $0) } }
            } else {
                try reply.container("v", "s") { try reply.append("") }
            }
            try reply.append(path, as: "o")
        }
    }

    /// The session at `path`, if `call`'s sender opened it.
    private func session(_ path: String, for call: BusMessage) throws -> TransferSession {
        guard let session = sessions[path], session.owner == call.sender else {
            throw BusFailure.noSession("no session \(path) for this client (open one with OpenSession)")
        }
        return session
    }

    /// The vault, open, or nil when it is locked; notes a change of state for clients.
    private func currentStore() throws -> VaultStore? {
        let store = try vault.unlockedStore()
        noteLockState(locked: store == nil)
        return store
    }

    /// The vault, open, or IsLocked.
    private func unlockedStore() throws -> VaultStore {
        guard let store = try currentStore() else {
            throw BusFailure.isLocked(
                "the SecureRoom vault is locked; run 'secureroom-vault unlock' (or log in with your PIN)")
        }
        return store
    }

    private func search(_ attributes: [String: String]) throws -> [String] {
        try unlockedStore().search(attributes).sorted { $0.modified > $1.modified }.map { SecretObject.itemPath($0.id) }
    }

    func getSecrets(_ call: BusMessage, _ connection: BusConnection) throws {
        let paths = try ourPaths(call.readPaths())
        let sessionPath = try call.readString("o")
        let session = try session(sessionPath, for: call)
        let store = try currentStore()
        // Each secret is opened, encoded and appended in turn, so only one is in clear at a time.
        try connection.reply(to: call) { reply in
            var size = 0
            try reply.container("a", "{o(oayays)}") {
                guard let store else { return }
                for path in paths {
                    // Only items; one removed meanwhile is left out, as a locked one is.
                    guard case let .item(id) = SecretObject(path: path), let secret = try? store.secret(id: id) else {
                        continue
                    }
                    size += secret.value.count
                    guard size <= Self.replyLimit else {
                        throw BusFailure.limitsExceeded(
                            "these secrets together exceed \(Self.replyLimit >> 20) MiB; ask for fewer at once")
                    }
                    try reply.container("e", "o(oayays)") {
                        try reply.append(path, as: "o")
                        try append(secret, in: session, path: sessionPath, to: reply)
                    }
                }
            }
        }
    }

    /// `paths` without repeats, in order; more than `pathLimit` is refused.
    private func ourPaths(_ paths: [String]) throws -> [String] {
        guard paths.count <= Self.pathLimit else {
            throw BusFailure.limitsExceeded("at most \(Self.pathLimit) objects at once")
        }
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// Appends `secret` as a Secret struct (oayays), encoded in `session`, whose path is `sessionPath`.
    private func append(
        _ secret: VaultSecret, in session: TransferSession, path sessionPath: String, to reply: BusMessage
    ) throws {
        let (parameters, value) = try session.encode(secret.value)
        try reply.container("r", "oayays") {
            try reply.append(sessionPath, as: "o")
            try parameters.withUnsafeBytes { try reply.append(bytes: $0) }
            try value.withUnsafeBytes { try reply.append(bytes: $0) }
            try reply.append(secret.contentType)
        }
    }

    func unlock(_ call: BusMessage, _ connection: BusConnection) throws {
        // Only objects of this provider are answered for, each once.
        let objects = try ourPaths(call.readPaths()).filter {
            switch SecretObject(path: $0) {
            case .collection, .item: return true
            default: return false
            }
        }
        if try currentStore() != nil {
            try connection.reply(to: call) {
                try $0.append(paths: objects)
                try $0.append("/", as: "o")
            }
            return
        }
        guard prompts.count < Self.promptLimit,
            prompts.values.filter({ $0.owner == call.sender }).count < Self.perClientLimit
        else {
            throw BusFailure.limitsExceeded(
                "a client may hold \(Self.perClientLimit) prompts at once, all clients \(Self.promptLimit)")
        }
        serial += 1
        let prompt = UnlockPrompt(
            path: SecretObject.promptPrefix + String(serial), owner: call.sender, objects: objects)
        prompts[prompt.path] = prompt
        try connection.reply(to: call) {
            try $0.append(paths: [])
            try $0.append(prompt.path, as: "o")
        }
    }

    // MARK: org.freedesktop.Secret.Collection

    func createItem(_ call: BusMessage, _ connection: BusConnection) throws {
        var label = ""
        var attributes: [String: String] = [:]
        try call.readPropertyDictionary { key in
            switch key {
            case "org.freedesktop.Secret.Item.Label":
                label = try readVariant(call, "s") { try call.readString() }
            case "org.freedesktop.Secret.Item.Attributes":
                attributes = try readVariant(call, "a{ss}") { try call.readStringDictionary() }
            default: return false
            }
            return true
        }
        let (value, contentType) = try readSecret(call)
        let replace = try call.readBool()
        let (secret, replaced) = try unlockedStore().create(
            label: label, attributes: attributes, contentType: contentType,
            value: value, replace: replace)
        let path = SecretObject.itemPath(secret.id)
        try connection.reply(to: call) {
            try $0.append(path, as: "o")
            try $0.append("/", as: "o")
        }
        itemSignal(replaced ? "ItemChanged" : "ItemCreated", path)
    }

    private func readVariant<T>(_ call: BusMessage, _ contents: String, _ body: () throws -> T) throws -> T {
        let actual = try call.variantContents()
        guard actual == contents else {
            throw BusFailure.invalidArguments("expected a variant of (\(contents)), not (\(actual))")
        }
        try call.enter("v", contents)
        let value = try body()
        try call.exit()
        return value
    }

    /// Reads a secret struct (oayays) and decodes its value in its session.
    private func readSecret(_ call: BusMessage) throws -> (SecretBytes, contentType: String) {
        try call.enter("r", "oayays")
        let session = try session(try call.readString("o"), for: call)
        let parameters = try call.readBytes(atMost: 16, "a secret's parameters")
        let encoded = try call.readBytes(atMost: VaultSecret.maximumValueLength + 16, "a secret's value")
        let contentType = try call.readString()
        try call.exit()
        return (try session.decode(parameters: parameters, value: encoded), contentType)
    }

    private func itemSignal(_ member: String, _ path: String) {
        connection?.emit(
            from: SecretObject.collectionPath, interface: "org.freedesktop.Secret.Collection", member: member
        ) {
            try $0.append(path, as: "o")
        }
    }

    // MARK: org.freedesktop.Secret.Item

    /// The secret `object` names (the table reaches these for items only).
    private func itemID(_ object: SecretObject) throws -> [UInt8] {
        guard case .item(let id) = object else { throw BusFailure.noSuchObject("not a secret") }
        return id
    }

    func getSecret(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let sessionPath = try call.readString("o")
        let session = try session(sessionPath, for: call)
        let secret = try unlockedStore().secret(id: try itemID(object))
        try connection.reply(to: call) { try append(secret, in: session, path: sessionPath, to: $0) }
    }

    func setSecret(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let (value, contentType) = try readSecret(call)
        try unlockedStore().update(id: try itemID(object), value: (value, contentType))
        try connection.reply(to: call) { _ in }
        itemSignal("ItemChanged", call.path)
    }

    func deleteItem(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        try unlockedStore().remove(id: try itemID(object))
        try connection.reply(to: call) { try $0.append("/", as: "o") }
        itemSignal("ItemDeleted", call.path)
    }

    // MARK: org.freedesktop.Secret.Session

    func closeSession(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        guard case .session(let path) = object else { throw BusFailure.noSuchObject("not a session") }
        _ = try session(path, for: call)
        sessions[path] = nil
        try connection.reply(to: call) { _ in }
    }

    // MARK: org.freedesktop.Secret.Prompt

    /// The prompt `object` names, of this client (dispatch checked that already).
    private func ownPrompt(_ object: SecretObject, _ call: BusMessage) throws -> UnlockPrompt {
        guard case .prompt(let path) = object, let prompt = prompts[path], prompt.owner == call.sender else {
            throw BusFailure.noSuchObject("no prompt \(call.path) for this client")
        }
        return prompt
    }

    func showPrompt(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let prompt = try ownPrompt(object, call)
        guard prompt.start(until: Deadline(millisecondsFromNow: promptTimeoutMilliseconds)) else {
            throw BusFailure.failed("this prompt is already showing")
        }
        try connection.reply(to: call) { _ in }
        if askForPIN() { return }
        let advice = "run 'secureroom-vault unlock' (a client waits up to \(promptTimeoutMilliseconds / 1000) s)"
        log("vault locked: " + advice)
        if lastNotice?.hasPassed ?? true {
            lastNotice = Deadline(millisecondsFromNow: promptTimeoutMilliseconds)
            notify("An application asks for your secrets. To unlock the SecureRoom vault, " + advice + ".")
        }
    }

    func dismissPrompt(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let prompt = try ownPrompt(object, call)
        try connection.reply(to: call) { _ in }
        complete(prompt, unlocked: false)
    }

    /// Shows `text` as a desktop notification, if a notification service is on the bus
    /// (org.freedesktop.Notifications); nothing waits for it, and nothing fails without it.
    private func notify(_ text: String) {
        connection?.call(
            "org.freedesktop.Notifications", "/org/freedesktop/Notifications",
            interface: "org.freedesktop.Notifications", member: "Notify"
        ) { call in
            try call.append("SecureRoom")
            try call.append(UInt32(0))
            try call.append("dialog-password")
            try call.append("Vault locked")
            try call.append(text)
            try call.container("a", "s") {}
            try call.container("a", "{sv}") {}
            try call.append(Int32(clamping: promptTimeoutMilliseconds))
        }
    }

    /// Completes every waiting prompt whose vault is now unlocked or whose wait ran out;
    /// returns how long to wait for the next look (-1 when no prompt waits).
    private func watchPrompts() -> Int32 {
        let waiting = prompts.values.filter { $0.deadline != nil }
        guard !waiting.isEmpty || !waitingSearches.isEmpty || unlockChild != nil else { return -1 }
        let ended = reapUnlockChild()
        let unlocked = ((try? currentStore()) ?? nil) != nil
        for prompt in waiting where unlocked || prompt.deadline?.hasPassed == true || ended == .cancelled {
            complete(prompt, unlocked: unlocked)
        }
        let answerable = waitingSearches.filter { unlocked || $0.deadline.hasPassed || unlockChild == nil }
        waitingSearches.removeAll { search in answerable.contains { $0.call.pointer == search.call.pointer } }
        for search in answerable {
            if let connection {
                do { try answer(search: search.call, search.attributes, split: search.split, connection) } catch {
                    connection.reply(to: search.call, failure: Self.failure(for: error))
                }
            }
            search.call.release()
        }
        if prompts.values.allSatisfy({ $0.deadline == nil }) && waitingSearches.isEmpty { stopUnlockChild() }
        return prompts.values.contains { $0.deadline != nil } || !waitingSearches.isEmpty || unlockChild != nil
            ? 250 : -1
    }

    /// How the PIN prompt ended, if it did since the last look.
    private enum PromptEnd { case cancelled, other }

    /// Reaps the PIN prompt if it has ended: `cancelled` when the user cancelled it
    /// (`unlock` exits 7), `other` for anything else (unlocked, wrong PINs, no display).
    private func reapUnlockChild() -> PromptEnd? {
        guard let child = unlockChild else { return nil }
        var status: Int32 = 0
        guard waitpid(child, &status, WNOHANG) == child else { return nil }
        unlockChild = nil
        let exited = status & 0x7f == 0
        log("PIN prompt ended (\(exited ? "exit \((status >> 8) & 0xff)" : "signal \(status & 0x7f)"))")
        return exited && (status >> 8) & 0xff == Self.cancelledStatus ? .cancelled : .other
    }

    /// `secureroom-vault unlock`'s exit status for a cancelled prompt (ExitStatus.cancelled).
    static let cancelledStatus: Int32 = 7

    /// Ends the PIN prompt when nobody waits for it any more.
    private func stopUnlockChild() {
        guard let child = unlockChild else { return }
        kill(child, SIGTERM)
        var status: Int32 = 0
        while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        unlockChild = nil
    }

    private func complete(_ prompt: UnlockPrompt, unlocked: Bool) {
        prompts[prompt.path] = nil
        connection?.emit(
            from: prompt.path, interface: "org.freedesktop.Secret.Prompt", member: "Completed", to: prompt.owner
        ) { signal in
            try signal.append(!unlocked)
            try signal.container("v", "ao") { try signal.append(paths: unlocked ? prompt.objects : []) }
        }
        log(unlocked ? "vault unlocked; prompt completed" : "prompt dismissed or timed out")
    }

    /// Tells clients (PropertiesChanged on the collection: Locked, and Items invalidated)
    /// when a request finds the vault locked or unlocked otherwise than the last one did, so
    /// that libsecret's cached properties follow a lock by timeout, session end or a client.
    private func noteLockState(locked: Bool) {
        defer { lastLocked = locked }
        guard let lastLocked, lastLocked != locked else { return }
        connection?.emit(
            from: SecretObject.collectionPath, interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"
        ) { signal in
            try signal.append("org.freedesktop.Secret.Collection")
            try signal.container("a", "{sv}") {
                try signal.container("e", "sv") {
                    try signal.append("Locked")
                    try signal.container("v", "b") { try signal.append(locked) }
                }
            }
            try signal.container("a", "s") { try signal.append("Items") }
        }
    }

    /// Drops the sessions and prompts of a client that left the bus.
    private func forget(_ signal: BusMessage) {
        guard signal.has(signature: "sss"), let name = try? signal.readString(), (try? signal.readString()) != nil,
            let newOwner = try? signal.readString(), newOwner.isEmpty, name.hasPrefix(":")
        else { return }
        sessions = sessions.filter { $0.value.owner != name }
        prompts = prompts.filter { $0.value.owner != name }
    }

    // MARK: org.freedesktop.DBus.Properties

    private func properties(of object: SecretObject) -> ObjectProperties {
        ObjectProperties(object: object, path: vault.path) { [unowned self] in try currentStore() }
    }

    func getProperty(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let (_, name) = (try call.readString(), try call.readString())
        let values = try properties(of: object).values()
        guard let value = values.first(where: { $0.name == name }) else {
            throw BusFailure.unknownProperty("no property \(name) at \(call.path)")
        }
        try connection.reply(to: call) { try value.append(to: $0) }
    }

    func getAllProperties(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let requested = try call.readString()
        let properties = properties(of: object)
        let values = requested.isEmpty || requested == properties.interface ? try properties.values() : []
        try connection.reply(to: call) { reply in
            try reply.container("a", "{sv}") {
                for value in values {
                    try reply.container("e", "sv") {
                        try reply.append(value.name)
                        try value.append(to: reply)
                    }
                }
            }
        }
    }

    func setProperty(_ call: BusMessage, _ object: SecretObject, _ connection: BusConnection) throws {
        let (_, name) = (try call.readString(), try call.readString())
        guard case let .item(id) = object else { throw BusFailure.readOnly("\(name) cannot be set at \(call.path)") }
        switch name {
        case "Label": try unlockedStore().update(id: id, label: try readVariant(call, "s") { try call.readString() })
        case "Attributes":
            try unlockedStore().update(
                id: id, attributes: try readVariant(call, "a{ss}") { try call.readStringDictionary() })
        default: throw BusFailure.readOnly("\(name) cannot be set at \(call.path)")
        }
        try connection.reply(to: call) { _ in }
        itemSignal("ItemChanged", call.path)
    }
}
