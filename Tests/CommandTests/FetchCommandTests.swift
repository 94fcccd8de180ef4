import Catalog
import Datasets
import FetchedResults
import Foundation
import PostgresStore
import TestSupport
import Testing

/// `fetchbench fetch` as a user runs it: the same order with every strategy, a clear error for
/// every bad input, a user's PostgreSQL schema left alone.
@Suite struct FetchCommand {
  @Test func fetchCommandFailsClearlyOnBadInput() throws {
    let dir = EngineFixture.shared.folder
    let common = ["fetch", "--datasets", dir, "--rows", "\(EngineFixture.rows)", "--seed", "5"]
    let cases: [([String], String)] = [
      (["--where", "state = "], "expected a value"),
      (["--sort", "nope asc"], "'nope' is not a key path of FailedBankInfo"),
      (["--section", "city"], "must be the key path of the first sort descriptor"),
      (["--store", "oracle"], "unknown store 'oracle'"),
      (["--rows", "77"], "no such dataset; make it with: fetchbench generate --dataset banks --rows 77"),
    ]
    for (args, message) in cases {
      let out = try TestSupport.run(common + args)
      #expect(out.status != 0, "\(args)")
      #expect(out.stderr.contains(message), "\(args): \(out.stderr)")
    }
    let ok = try TestSupport.run(
      common + ["--dataset", "wells", "--section", "state", "--sort", "state asc", "--sections", "--stats"])
    #expect(ok.status == 0, "\(ok.stderr)")
    #expect(ok.stdout.split(separator: "\n").first?.hasPrefix("AK\t") == true || ok.stdout.contains("\t"))
    #expect(ok.stderr.contains("queries\t1"), "the sections come with the ID query")
    #expect(ok.stderr.contains("rows_materialized\t0"))
    let ids = try TestSupport.run(common + ["--ids"])
    #expect(ids.stdout.split(separator: "\n").count == EngineFixture.rows)
  }

  /// `fetch --strategy S --ids` prints the same IDs in the same order for every strategy, with
  /// one query per page for offset and keyset.
  @Test func theFetchCommandPrintsTheSameOrderWithEveryStrategy() throws {
    let common = [
      "fetch", "--datasets", EngineFixture.shared.folder, "--rows", "\(EngineFixture.rows)", "--seed", "5", "--dataset",
      "wells",
      "--sort", "field desc", "--ids", "--stats",
    ]
    var outputs: [String: String] = [:]
    for strategy in ["full", "batched", "offset", "keyset"] {
      let run = try TestSupport.run(
        common + ["--strategy", strategy] + (strategy == "full" ? ["--batch-size", "0"] : ["--batch-size", "50"]))
      #expect(run.status == 0, "\(strategy): \(run.stderr)")
      outputs[strategy] = run.stdout
      if strategy == "offset" || strategy == "keyset" {
        #expect(run.stderr.contains("queries\t\(EngineFixture.rows / 50 + 1)\n"), "\(strategy): \(run.stderr)")
      }
    }
    #expect(outputs["full"]!.split(separator: "\n").count == EngineFixture.rows)
    #expect(Set(outputs.values).count == 1, "every strategy prints the same IDs in the same order")
    let bad = try TestSupport.run(common + ["--strategy", "keyset", "--batch-size", "0"])
    #expect(bad.status == 64 && bad.stderr.contains("give a size above 0"), "\(bad.stderr)")
  }

  @Test func theCommandLineExitsNonZeroWhenTheServerIsDown() throws {
    let out = try TestSupport.run([
      "fetch", "--store", "postgres", "--postgres-url", "postgres://postgres@127.0.0.1:1/fetchbench", "--ids",
    ])
    #expect(out.status != 0)
    #expect(out.stderr.contains("cannot connect to PostgreSQL at 127.0.0.1:1"), "\(out.stderr)")
    let bad = try TestSupport.run(["fetch", "--store", "postgres", "--postgres-url", "mysql://x/y"])
    #expect(bad.status != 0 && bad.stderr.contains("is not a PostgreSQL URL"), "\(bad.stderr)")
  }
}

/// A user's schema and tables in the database FetchBench loads into are left as they are: a
/// schema named `fetchbench_staging` (FetchBench's staging schemas have new names and a
/// comment), and tables named `fetchbench_meta` or `fetchbench_changes` that are not
/// FetchBench's (refused by name). A staging schema an interrupted load left is dropped.
@Suite struct PostgresUserTables {
  @Test func theUsersSchemaAndTablesAreLeftAlone() throws {
    try EngineFixture.shared.requirePostgres()
    let dir = TestSupport.temporaryFolder("pg-user")
    defer { TestSupport.remove(dir) }
    let gen = try TestSupport.run([
      "generate", "--dataset", "banks", "--rows", "300", "--datasets", dir, "--format", "sqlite",
    ])
    #expect(gen.status == 0, "\(gen.stderr)")
    func fetch(_ url: PostgresURL) throws -> TestSupport.Output {
      try TestSupport.run([
        "fetch", "--store", "postgres", "--rows", "300", "--datasets", dir, "--ids", "--postgres-url", "\(url)",
      ])
    }

    let url = try TestDatabases.create("user_schema")
    let admin = try PostgresAdmin(url: url)
    try admin.execute("CREATE SCHEMA fetchbench_staging")
    try admin.execute("CREATE TABLE fetchbench_staging.mine (x INT)")
    try admin.execute("INSERT INTO fetchbench_staging.mine VALUES (42)")
    try admin.execute("CREATE SCHEMA fetchbench_staging_1_dead")
    try admin.execute(
      "COMMENT ON SCHEMA fetchbench_staging_1_dead IS 'fetchbench staging schema: dropped by the next load'")
    let loaded = try fetch(url)
    #expect(loaded.status == 0, "\(loaded.stderr)")
    #expect(loaded.stdout.split(separator: "\n").count == 300)
    #expect(try admin.scalar("SELECT x::text FROM fetchbench_staging.mine") == "42")
    #expect(
      try admin.column("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'fetchbench_staging%' ORDER BY 1") == [
        "fetchbench_staging"
      ])

    for (table, ddl) in [
      ("fetchbench_meta", "CREATE TABLE fetchbench_meta (note TEXT)"),
      ("fetchbench_changes", "CREATE TABLE fetchbench_changes (id INT, what TEXT)"),
    ] {
      let other = try TestDatabases.create("user_\(table)")
      let otherAdmin = try PostgresAdmin(url: other)
      try otherAdmin.execute(ddl)
      let refused = try fetch(other)
      #expect(
        refused.status == 1 && refused.stderr.contains("table \(table) in \(other) is not FetchBench's"),
        "\(refused.stderr)")
      #expect(try otherAdmin.scalar("SELECT to_regclass('public.failed_bank_info')::text") == nil, "nothing loaded")
    }
  }
}
