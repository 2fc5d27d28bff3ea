import Foundation

/// How a role made by ``PostgresCluster/createRole(authentication:password:)`` must prove its
/// password (its stored hash and the server's `pg_hba.conf` method).
public enum PasswordAuthentication: String, Sendable, CaseIterable {
    /// SCRAM-SHA-256 (PostgreSQL's default since 14).
    case scramSHA256 = "scram-sha-256"
    /// MD5 (older servers and clients).
    case md5

    /// The group role whose members `pg_hba.conf` asks for this method.
    var group: String {
        switch self {
        case .scramSHA256: "feedagg_password_scram"
        case .md5: "feedagg_password_md5"
        }
    }
}

/// A login role of a test cluster that must give a password.
public struct PostgresRole: Sendable {
    /// The role's name.
    public let name: String
    /// Its password (a secret: tests check it is never printed).
    public let password: String
    /// How the server checks it.
    public let authentication: PasswordAuthentication
}

/// A fresh database in a test cluster.
public struct PostgresDatabase: Sendable {
    /// The database's name.
    public let name: String
    /// The cluster it lives in.
    public let cluster: PostgresCluster
    /// Its owner when made for a password role (`nil`: the superuser).
    public let owner: PostgresRole?

    /// `postgres://USER@127.0.0.1:PORT/NAME`: the owner (or the superuser), without a password.
    public var url: String { cluster.url(database: name, role: owner) }
}

extension PostgresCluster {
    /// Creates an empty database named `<label>_<n>_<random>` (lower-case, at most 63 bytes),
    /// owned by `owner` when given (who may then create tables in its `public` schema).
    public func createDatabase(_ label: String = "test", owner: PostgresRole? = nil) async throws -> PostgresDatabase {
        let name = uniqueName(label)
        var sql = "CREATE DATABASE \(Self.quoteIdentifier(name))"
        if let owner { sql += " OWNER \(Self.quoteIdentifier(owner.name))" }
        _ = try await psql(sql)
        return PostgresDatabase(name: name, cluster: self, owner: owner)
    }

    /// Creates a login role that must give `password` (random when `nil`) by `authentication`,
    /// over TCP and the Unix socket alike. It may create databases; nothing else.
    public func createRole(
        authentication: PasswordAuthentication = .scramSHA256, password: String? = nil
    ) async throws -> PostgresRole {
        let name = uniqueName("feedagg_role")
        let password = password ?? (0..<3).map { _ in UUID().uuidString }.joined().replacingOccurrences(of: "-", with: "")
        // The SQL goes through a file, so the password is not in a command line anyone can list.
        let sql = """
            SET password_encryption = '\(authentication.rawValue)';
            CREATE ROLE \(Self.quoteIdentifier(name)) LOGIN CREATEDB PASSWORD \(Self.quoteLiteral(password)) IN ROLE \(authentication.group);
            """
        let script = folder.appendingPathComponent("role-\(name).sql")
        do {
            try Data(sql.utf8).write(to: script)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: script.path)
        } catch {
            throw PostgresClusterError("cannot write \(script.path): \(error)")
        }
        defer { try? FileManager.default.removeItem(at: script) }
        _ = try await psql(arguments: ["-f", script.path])
        return PostgresRole(name: name, password: password, authentication: authentication)
    }

    /// `postgres://USER@127.0.0.1:PORT/DATABASE` for `role` (the superuser when `nil`); the
    /// password is in it only with `includingPassword` (percent-encoded).
    public func url(database: String, role: PostgresRole? = nil, includingPassword: Bool = false) -> String {
        let user = (role?.name ?? superuser).addingPercentEncoding(withAllowedCharacters: .urlUserAllowed) ?? ""
        var credentials = user
        if includingPassword, let password = role?.password {
            credentials += ":" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        return "postgres://\(credentials)@\(host):\(port)/\(database)"
    }

    /// Runs `sql` with `psql` and returns its unaligned, tuples-only output (`a|b` lines), trimmed.
    ///
    /// As the superuser over the Unix socket by default; with `role`, over TCP on 127.0.0.1 with
    /// `password` (the role's own when `nil`) in `PGPASSWORD`, so authentication is exercised.
    /// Throws (with psql's error) when a statement fails or the login is refused.
    public func psql(
        _ sql: String, database: String = "postgres", role: PostgresRole? = nil, password: String? = nil
    ) async throws -> String {
        try await psql(arguments: ["-c", sql], database: database, role: role, password: password)
    }

    /// Runs `psql` with `arguments` after the connection options (see ``psql(_:database:role:password:)``).
    func psql(
        arguments: [String], database: String = "postgres", role: PostgresRole? = nil, password: String? = nil
    ) async throws -> String {
        var environment = Self.serverEnvironment(folder)
        environment["PGCONNECT_TIMEOUT"] = "60"
        let connection: [String]
        if let role {
            environment["PGPASSWORD"] = password ?? role.password
            connection = ["-h", host, "-p", "\(port)", "-U", role.name]
        } else {
            connection = ["-h", socketDirectory, "-p", "\(port)", "-U", superuser]
        }
        let result = try await ChildProcess.run(
            installation.program("psql"),
            arguments: ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-w", "-d", database] + connection + arguments,
            environment: environment, timeout: .seconds(300))
        guard result.status == 0, !result.terminatedBySignal else {
            throw PostgresClusterError(
                "psql as \(role?.name ?? superuser) on database \(database) (cluster 127.0.0.1:\(port)) failed: "
                    + "exit status \(result.status): \(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines))")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `<label>_<n>_<random>`: lower-case letters, digits and `_`, at most 63 bytes.
    private func uniqueName(_ label: String) -> String {
        let cleaned = String(label.lowercased().map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(40))
        let random = UUID().uuidString.prefix(8).lowercased()
        return "\(cleaned.isEmpty ? "db" : cleaned)_\(nextSequenceNumber())_\(random)"
    }

    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func quoteLiteral(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
