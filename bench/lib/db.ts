// The throw-away database of one run: created fresh, dropped at the end.

import postgres from 'postgres';

export interface BenchDatabase {
  name: string;
  url: string;
}

export function databaseUrl(adminUrl: string, name: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const stamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const name = `bench_${stamp}_${Math.random().toString(36).slice(2, 6)}`;
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    await sql.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  return { name, url: databaseUrl(adminUrl, name) };
}

export async function dropBenchDatabase(adminUrl: string, db: BenchDatabase): Promise<void> {
  const sql = postgres(adminUrl, { max: 1, onnotice: () => {}, connect_timeout: 10 });
  try {
    // FORCE (PostgreSQL 13+) ends sessions a killed server may have left behind.
    await sql.unsafe(`DROP DATABASE IF EXISTS "${db.name}" WITH (FORCE)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
