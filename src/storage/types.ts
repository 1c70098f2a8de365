// The storage port: where uploaded files, avatars and emoji live. Two backends implement it
// (a local directory and S3-compatible object storage); everything above sees only this.
import type { Readable } from 'node:stream';

/** Which area a key lives in: message uploads, or the public images (avatars, emoji, realm icon/logo). */
export type Area = 'uploads' | 'avatars';

export interface StoredObject {
  /** The bytes asked for (the whole object, or the range). */
  body: Readable;
  /** Size of the whole object. */
  size: number;
  /** The byte range served, inclusive, when a range was asked for. */
  range?: { start: number; end: number };
}

export interface FileStorage {
  readonly kind: 'local' | 's3';
  /**
   * Writes a stream under a key. Nothing is visible under the key until the whole stream was
   * written; a stream that fails (aborted upload, size limit) leaves nothing behind.
   */
  put(area: Area, key: string, body: Readable, contentType: string): Promise<{ size: number }>;
  /** The object (or a byte range of it), or null when there is none. */
  get(area: Area, key: string, range?: { start: number; end?: number }): Promise<StoredObject | null>;
  /** The object's size, or null when there is none. */
  size(area: Area, key: string): Promise<number | null>;
  /** Moves an object to another key of the same area (a staged upload to its final place). */
  move(area: Area, from: string, to: string): Promise<void>;
  /** Removes an object; removing one that is not there is not an error. */
  delete(area: Area, key: string): Promise<void>;
  /** Keys under a prefix written before a time (for the cleanup of abandoned staged uploads). */
  listOlderThan(area: Area, prefix: string, before: Date): Promise<string[]>;
}

/**
 * Keys are made by the server (random parts and sanitised names), never taken from a client
 * as is; this check is the last guard against a key that could leave its area.
 */
export function checkKey(key: string): string {
  if (key.length === 0 || key.length > 1024 || key.startsWith('/') || key.includes('\\') || key.includes('\0')) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  for (const part of key.split('/')) {
    if (part === '' || part === '.' || part === '..') throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
  return key;
}
