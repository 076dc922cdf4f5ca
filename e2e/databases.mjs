// The databases an end-to-end suite runs the binary on, as the Go tests'
// internal/dbtest does: a SQLite file in a temporary folder, and a
// PostgreSQL database of its own on the server at VITRINE_TEST_POSTGRES
// (default postgres://postgres@127.0.0.1:5432/postgres), created with psql
// and dropped at the end. Without that server the PostgreSQL suite is
// skipped, unless VITRINE_TEST_POSTGRES_REQUIRED is set: then it fails.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const admin = process.env.VITRINE_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const required = !!process.env.VITRINE_TEST_POSTGRES_REQUIRED;

const psql = (sql) => exec('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', admin, '-c', sql]);

// Why PostgreSQL cannot be used here, or '' when it can.
async function postgresProblem() {
  try {
    await psql('SELECT 1');
    return '';
  } catch (err) {
    return `PostgreSQL not reachable at ${admin} with psql (set VITRINE_TEST_POSTGRES): ${err.stderr?.trim() || err.message}`;
  }
}

const pgProblem = await postgresProblem();

// databases lists the kinds of database: for each, its name, what to pass
// describe() (a skip reason when PostgreSQL is missing and not required),
// and create(), which returns a new database's URL and its drop().
export const databases = [
  {
    name: 'sqlite',
    options: {},
    async create() {
      const dir = mkdtempSync(join(tmpdir(), 'vitrine-e2e-'));
      return { url: join(dir, 'e2e.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'postgres',
    options: pgProblem && !required ? { skip: pgProblem } : {},
    async create() {
      if (pgProblem) throw new Error(`PostgreSQL is required for this run (VITRINE_TEST_POSTGRES_REQUIRED): ${pgProblem}`);
      const name = `vitrine_e2e_${randomBytes(6).toString('hex')}`;
      await psql(`CREATE DATABASE ${name}`);
      const url = new URL(admin);
      url.pathname = `/${name}`;
      return {
        url: url.toString(),
        // The role the binary makes for a superuser's connections to it
        // (store.AppRoleName) goes with the database.
        drop: async () => {
          await psql(`DROP DATABASE ${name} WITH (FORCE)`);
          await psql(`DROP ROLE IF EXISTS vitrine_app_${name}`);
        },
      };
    },
  },
];
