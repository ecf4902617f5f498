import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL every benchmark runs against. */
export const BENCH_URL = process.env.TIDEMARK_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export function freshName(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/** Run statements on a short-lived connection. */
export async function withClient<T>(fn: (client: pg.Client) => Promise<T>, url = BENCH_URL): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function dropSchema(schema: string): Promise<void> {
  await withClient((c) => c.query(`drop schema if exists "${schema}" cascade`));
}

/** A fresh database (for peers that want a whole database of their own); returns its URL. */
export async function createDatabase(name: string): Promise<string> {
  await withClient((c) => c.query(`create database "${name}"`));
  const url = new URL(BENCH_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(name: string): Promise<void> {
  await withClient((c) => c.query(`drop database if exists "${name}" with (force)`));
}

/** Checkpoint so that one run's dirty pages are not flushed during the next run's timing. */
export async function settle(): Promise<void> {
  await withClient((c) => c.query('checkpoint'));
}
