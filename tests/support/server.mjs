// Starts the real gpuplan binary for the Node test suites (tests/browser, tests/contract):
// `serve --port 0` on a fresh database, serving `static/`. The database is a SQLite file in
// a temporary directory, or, when GPUPLAN_TEST_POSTGRES names a PostgreSQL server (`make
// test-postgres`), a new database there made from GPUPLAN_TEST_POSTGRES_TEMPLATE with psql
// and dropped when the server stops (tests/testing/test_database.h does the same in C++).
// Node built-ins only, so each suite imports it by path without a package.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

// Resolves to {base, db, createKey(name, scope), stop() -> Promise} once the server has
// logged its port; on failure the server is stopped and its files removed.
export function startServer(binary = process.env.GPUPLAN_BINARY || join(root, 'build/gpuplan')) {
  const work = mkdtempSync(join(tmpdir(), 'gpuplan-node-'));
  const pg = (process.env.GPUPLAN_TEST_POSTGRES || '').replace(/\/+$/, '');
  const pgName = `node${process.pid}_${Date.now()}`;
  const psql = (sql) => execFileSync('psql', [`${pg}/postgres`, '-qtAc', sql], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (pg) {
    const from = process.env.GPUPLAN_TEST_POSTGRES_TEMPLATE;
    psql(`CREATE DATABASE ${pgName}${from ? ` TEMPLATE ${from}` : ''}`);
  }
  const db = pg ? `${pg}/${pgName}` : join(work, 'g.db');
  const child = spawn(binary, ['serve', '--port', '0', '--db', db, '--static-dir', join(root, 'static')],
    { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const exited = new Promise((done) => child.on('exit', done));
  // Stops the server and removes its files; resolves once it has exited.
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
    rmSync(work, { recursive: true, force: true });
    if (pg) psql(`DROP DATABASE IF EXISTS ${pgName} WITH (FORCE)`);
  };
  const createKey = (name, scope) =>
    execFileSync(binary, ['keys', 'create', '--db', db, '--name', name, '--scope', scope],
      { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  return new Promise((resolvePort, reject) => {
    const fail = (error) => {
      stop().catch(() => {});
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`server did not start:\n${log}`)), 15000);
    const read = (chunk) => {
      log += chunk;
      const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolvePort({ base: `http://127.0.0.1:${m[1]}`, db, createKey, stop });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited ${code}:\n${log}`));  // ignored once started
    });
  });
}
