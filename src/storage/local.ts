// Files in a local directory ($DATA_DIR/uploads): the default, which needs nothing installed.
// A write goes to a temporary file next to its target and is renamed into place at the end,
// so a failed or aborted write leaves no partial file under the key.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import { checkKey, type Area, type FileStorage, type StoredObject } from './types.js';

export class LocalStorage implements FileStorage {
  readonly kind = 'local' as const;

  constructor(private readonly root: string) {}

  private pathOf(area: Area, key: string): string {
    const base = path.join(this.root, area);
    const full = path.resolve(base, checkKey(key));
    if (!full.startsWith(base + path.sep)) throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
    return full;
  }

  async put(area: Area, key: string, body: Readable, _contentType: string): Promise<{ size: number }> {
    const target = this.pathOf(area, key);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString('hex')}.partial`;
    let size = 0;
    body.on('data', (chunk: Buffer) => (size += chunk.length));
    try {
      await pipeline(body, fs.createWriteStream(temp, { flags: 'wx' }));
      await fsp.rename(temp, target);
    } catch (err) {
      await fsp.rm(temp, { force: true });
      throw err;
    }
    return { size };
  }

  async get(area: Area, key: string, range?: { start: number; end?: number }): Promise<StoredObject | null> {
    const file = this.pathOf(area, key);
    let stat: fs.Stats;
    try {
      stat = await fsp.stat(file);
    } catch {
      return null;
    }
    if (!stat.isFile()) return null;
    if (!range) return { body: fs.createReadStream(file), size: stat.size };
    const end = Math.min(range.end ?? stat.size - 1, stat.size - 1);
    return { body: fs.createReadStream(file, { start: range.start, end }), size: stat.size, range: { start: range.start, end } };
  }

  async size(area: Area, key: string): Promise<number | null> {
    try {
      const stat = await fsp.stat(this.pathOf(area, key));
      return stat.isFile() ? stat.size : null;
    } catch {
      return null;
    }
  }

  async move(area: Area, from: string, to: string): Promise<void> {
    const target = this.pathOf(area, to);
    await fsp.mkdir(path.dirname(target), { recursive: true });
    await fsp.rename(this.pathOf(area, from), target);
  }

  async delete(area: Area, key: string): Promise<void> {
    await fsp.rm(this.pathOf(area, key), { force: true });
  }

  async listOlderThan(area: Area, prefix: string, before: Date): Promise<string[]> {
    const dir = this.pathOf(area, prefix);
    let names: string[];
    try {
      names = await fsp.readdir(dir);
    } catch {
      return [];
    }
    const out: string[] = [];
    for (const name of names) {
      const stat = await fsp.stat(path.join(dir, name)).catch(() => null);
      if (stat?.isFile() && stat.mtime < before) out.push(`${prefix}/${name}`);
    }
    return out;
  }
}
