import { createHash, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { openDatabase, sql, type Database } from "../../src/db/client.js";
import { PGLITE_EXTENSIONS } from "../../src/db/pglite.js";
import { tempDir } from "./temp-dirs.js";

const MIGRATIONS = path.resolve(import.meta.dirname, "../../src/db/migrations");
const CACHE = path.resolve(import.meta.dirname, "../../node_modules/.cache/feira");

/**
 * Settings of the test templates (postgresql.auto.conf, through ALTER SYSTEM): a PGlite start
 * zeroes its shared buffers, and at the default 128 MB that was a third of the CPU of every test
 * file's database; a test database holds kilobytes.
 */
const TEMPLATE_SETTINGS = ["alter system set shared_buffers = '16MB'"];

function migrationsHash(): string {
  const h = createHash("sha256");
  h.update(TEMPLATE_SETTINGS.join(";"));
  for (const f of readdirSync(MIGRATIONS).filter((f) => f.endsWith(".sql")).sort()) h.update(readFileSync(path.join(MIGRATIONS, f)));
  return h.digest("hex").slice(0, 16);
}

/**
 * A fresh, migrated database for one test file: PostgreSQL when DATABASE_URL is set (a new
 * database, dropped on close), otherwise an in-memory PGlite loaded from a migrated template
 * cached in the temp folder (an initdb per file would cost ~2.5 s).
 */
export async function freshDatabase(): Promise<Database & { url?: string }> {
  const url = process.env.DATABASE_URL;
  if (url) return freshPostgres(url);
  const client = await PGlite.create({ loadDataDir: await pgliteTemplate(), extensions: PGLITE_EXTENSIONS });
  const database = await openDatabase({ pglite: client });
  await database.migrate(); // a no-op on the template; keeps a stale template honest
  return database;
}

// The template's bytes, read once per process: the suite's runner puts many test files in one
// process (test/helpers/suite/run-suite.ts), and a worktree beside this one may replace the cached
// file (another migration set) between two reads.
let template: Promise<Blob> | undefined;
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    // A cache, not a temporary file: kept between runs under node_modules/.cache (the usual place
    // for tool caches, ignored by git), never left in the system's temp folder.
    mkdirSync(CACHE, { recursive: true });
    const file = path.join(CACHE, `feira-pglite-${migrationsHash()}.tar.gz`);
    // Kept unpacked: PGlite would gunzip it again for every database (about 0.1 s of CPU each).
    try {
      return new TemplateBlob(gunzipSync(readFileSync(file)));
    } catch {
      return new TemplateBlob(gunzipSync(await makeTemplate(file)));
    }
  })();
  return template;
}

/**
 * The template as PGlite reads it (its arrayBuffer(), once per database): a copy of bytes held in
 * memory. Node 20's Blob gathers its bytes chunk by chunk on every read, which was a quarter of a
 * PGlite start's CPU.
 */
class TemplateBlob extends Blob {
  private readonly whole: Uint8Array<ArrayBuffer>;
  constructor(bytes: Uint8Array) {
    super([]);
    this.whole = new Uint8Array(bytes); // its own ArrayBuffer, of exactly these bytes
  }
  override get size(): number {
    return this.whole.byteLength;
  }
  // The same bytes every time, not a copy: PGlite only reads them (untar, then copies each file
  // into its own file system).
  override async arrayBuffer(): Promise<ArrayBuffer> {
    return this.whole.buffer;
  }
}

async function makeTemplate(file: string): Promise<Uint8Array<ArrayBuffer>> {
  const proto = await PGlite.create({ extensions: PGLITE_EXTENSIONS });
  const database = await openDatabase({ pglite: proto });
  await database.migrate();
  for (const setting of TEMPLATE_SETTINGS) await proto.exec(setting);
  const dump = new Uint8Array(await (await proto.dumpDataDir("gzip")).arrayBuffer());
  await proto.close();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, dump);
  renameSync(tmp, file); // atomic: parallel test files never read half a template
  // Templates of older migration sets are of no further use.
  for (const f of readdirSync(CACHE)) {
    if (/^feira-pglite-[0-9a-f]{16}\.tar\.gz$/.test(f) && path.join(CACHE, f) !== file) rmSync(path.join(CACHE, f), { force: true });
  }
  return dump;
}

/**
 * A new PGlite data directory (a DATA_DIR for feira processes) holding the migrated, empty
 * database: a copy of a template directory made once per migration set. A first start on an
 * empty directory runs initdb and every migration, about 4 s of CPU; on the copy it is a restart
 * of an empty database (the first-start keys and demo merchant are still made, as nothing is in it).
 */
export async function migratedDataDir(prefix?: string): Promise<string> {
  const dir = tempDir(prefix);
  const template = await (dataDirTemplate ??= makeDataDirTemplate());
  const now = new Date();
  utimesSync(template, now, now); // in use: see the removal of old templates below
  cpSync(template, dir, { recursive: true });
  return dir;
}

let dataDirTemplate: Promise<string> | undefined;
async function makeDataDirTemplate(): Promise<string> {
  const final = path.join(CACHE, `feira-pglite-dir-${migrationsHash()}`);
  if (existsSync(final)) return final;
  mkdirSync(CACHE, { recursive: true });
  const building = `${final}.${process.pid}.tmp`;
  rmSync(building, { recursive: true, force: true });
  const database = await openDatabase({ dataDir: building });
  await database.migrate();
  for (const setting of TEMPLATE_SETTINGS) await database.db.execute(sql.raw(setting));
  await database.close(); // a clean shutdown: the copies start without recovery
  try {
    renameSync(building, final); // atomic: a process that copies it never sees half a directory
  } catch {
    rmSync(building, { recursive: true, force: true }); // another process made it first
  }
  // Templates of other migration sets go once unused for an hour: a worktree beside this one
  // (node_modules, and so this cache, may be shared) may still be copying its own.
  for (const f of readdirSync(CACHE)) {
    const other = path.join(CACHE, f);
    if (/^feira-pglite-dir-[0-9a-f]{16}$/.test(f) && other !== final && Date.now() - statSync(other).mtimeMs > 3_600_000) rmSync(other, { recursive: true, force: true });
  }
  return final;
}

// A test database's name carries its creation time (seconds): a runner killed before its files
// closed leaves databases behind, and the next test file on that server drops those older than
// STALE_AFTER_S (no test file lives that long). Names without the time are never touched.
const STALE_AFTER_S = 6 * 3600;
let swept = false;

/** Drops this server's test databases older than STALE_AFTER_S; returns their names. */
export async function sweepStaleDatabases(admin: pg.Client): Promise<string[]> {
  const dropped: string[] = [];
  const { rows } = await admin.query<{ datname: string }>(`select datname from pg_database where datname ~ '^feira_t_[0-9]+_[0-9a-f]+$'`);
  const now = Math.floor(Date.now() / 1000);
  for (const { datname } of rows) {
    const created = Number(datname.split("_")[2]);
    if (now - created <= STALE_AFTER_S) continue;
    // Another run's sweep may drop it first.
    await admin.query(`drop database if exists ${datname} with (force)`).then(() => dropped.push(datname), () => undefined);
  }
  return dropped;
}

// On PostgreSQL each test database is a copy of a migrated template database (one per migration
// set, made by the first test file that needs it): a copy costs a fraction of running the
// migrations, which took about 1 s per file. Its name does not match the stale sweep's.
let postgresTemplate: Promise<string> | undefined;

async function migratedTemplate(url: string, admin: pg.Client): Promise<string> {
  const name = `feira_tpl_${migrationsHash()}`;
  // Parallel processes of one run (and other runs on this server): one makes it, the rest wait.
  await admin.query("select pg_advisory_lock(hashtext($1))", [name]);
  try {
    if ((await admin.query("select 1 from pg_database where datname = $1", [name])).rowCount === 0) {
      // Migrated under a test database's name and renamed: a process killed half-way leaves no
      // half template, and the stale sweep drops what it left.
      const building = `feira_t_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString("hex")}`;
      await admin.query(`create database ${building}`);
      const target = new URL(url);
      target.pathname = `/${building}`;
      const database = await openDatabase({ databaseUrl: target.toString() });
      await database.migrate();
      await database.close();
      await admin.query(`alter database ${building} rename to ${name}`);
    }
  } finally {
    await admin.query("select pg_advisory_unlock(hashtext($1))", [name]);
  }
  return name;
}

async function freshPostgres(url: string): Promise<Database & { url: string }> {
  const name = `feira_t_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  if (!swept) {
    swept = true;
    await sweepStaleDatabases(admin);
  }
  const template = await (postgresTemplate ??= migratedTemplate(url, admin));
  await admin.query(`create database ${name} template ${template}`);
  await admin.end();
  const testUrl = new URL(url);
  testUrl.pathname = `/${name}`;
  const database = await openDatabase({ databaseUrl: testUrl.toString() });
  await database.migrate();
  return {
    ...database,
    url: testUrl.toString(),
    async close() {
      await database.close();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
