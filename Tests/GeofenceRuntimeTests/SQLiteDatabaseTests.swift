import Foundation
import TestSupport
import Testing

@testable import GeofenceRuntime

@Suite struct SQLiteDatabaseTests {
    let directory: TemporaryDirectory
    let database: SQLiteDatabase

    init() throws {
        directory = try TemporaryDirectory()
        database = try SQLiteDatabase(path: directory.file("test.sqlite"))
        try database.execute("CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
    }

    @Test(arguments: [
        SQLiteValue.integer(Int64.max), .integer(Int64.min), .integer(0), .real(-0.5), .real(1e300),
        .text("Zürich 🚲"), .text(""), .text("before\u{0}after"), .text("$(touch /tmp/x); 'quoted' \"q\"\n"),
        .blob(Data([0, 1, 2, 255])), .blob(Data()), .null,
    ])
    func valuesRoundTripWithTheirType(value: SQLiteValue) throws {
        try database.run("INSERT INTO t(v) VALUES (?)", [value])
        let rows = try database.query("SELECT v FROM t")
        #expect(rows.count == 1)
        #expect(rows.first?["v"] == value)
    }

    @Test func emptyTextIsNotStoredAsNull() throws {
        try database.run("INSERT INTO t(v) VALUES (?)", [.text("")])
        let rows = try database.query("SELECT typeof(v) AS type FROM t")
        #expect(rows.first?["type"] == .text("text"))
    }

    @Test func aTransactionThatThrowsLeavesNothingBehind() throws {
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try database.transaction {
                try database.run("INSERT INTO t(v) VALUES (?)", [.integer(1)])
                throw Stop()
            }
        }
        #expect(try database.query("SELECT count(*) AS n FROM t").first?["n"] == .integer(0))
        #expect(!database.inTransaction)
    }

    @Test func aTransactionThatReturnsIsCommitted() throws {
        let value = try database.transaction {
            try database.run("INSERT INTO t(v) VALUES (?)", [.integer(7)])
            return 42
        }
        #expect(value == 42)
        let reopened = try SQLiteDatabase(path: directory.file("test.sqlite"))
        #expect(try reopened.query("SELECT v FROM t").first?["v"] == .integer(7))
    }

    @Test func nestedTransactionsAreRefused() throws {
        try database.transaction {
            #expect(throws: SQLiteError.self) { try database.transaction {} }
        }
    }

    @Test func errorsCarrySQLitesMessageAndTheStatement() throws {
        do {
            _ = try database.query("SELECT nope FROM t")
            Issue.record("a bad column was accepted")
        } catch let error as SQLiteError {
            #expect(error.message.contains("no such column"))
            #expect(error.sql == "SELECT nope FROM t")
            #expect(error.description.contains("SELECT nope FROM t"))
        }
    }

    @Test func aConstraintViolationReportsItsCode() throws {
        try database.run("INSERT INTO t(id, v) VALUES (1, 1)")
        do {
            try database.run("INSERT INTO t(id, v) VALUES (1, 2)")
            Issue.record("a duplicate key was accepted")
        } catch let error as SQLiteError {
            // SQLITE_CONSTRAINT_PRIMARYKEY, an extended code whose low byte is SQLITE_CONSTRAINT (19).
            #expect(error.code & 0xff == 19)
            #expect(error.message.contains("UNIQUE"))
        }
    }

    @Test func theWrongNumberOfValuesIsAnError() throws {
        #expect(throws: SQLiteError.self) { try database.run("INSERT INTO t(v) VALUES (?)", []) }
    }

    @Test func aClosedDatabaseThrowsInsteadOfCrashing() throws {
        database.close()
        #expect(throws: SQLiteError.self) { try database.execute("SELECT 1") }
    }
}
