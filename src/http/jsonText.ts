// JSON text made ahead of time. A large part of a response (register's ten thousand users)
// is kept as text between requests and spliced into the body, instead of being rebuilt as
// objects and serialized again for every request.

/** A value whose JSON text is already known; written into a response body as is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * A value whose JSON is already known as UTF-8 bytes, in pieces to be written one after the
 * other (register's user lists, kept encoded between requests): written into a response body
 * as is, without being joined into one string or encoded again.
 */
export class JsonBytes {
  constructor(readonly parts: readonly Uint8Array[]) {}

  get byteLength(): number {
    let n = 0;
    for (const part of this.parts) n += part.byteLength;
    return n;
  }
}

/** Whether any top-level value of a body is JsonText or JsonBytes, so the body needs splicing. */
export function hasJsonText(body: Record<string, unknown>): boolean {
  for (const key in body) if (body[key] instanceof JsonText || body[key] instanceof JsonBytes) return true;
  return false;
}

/**
 * The JSON of a body whose top-level values may be JsonText or JsonBytes (the same JSON
 * JSON.stringify would give had those values been the objects they stand for), as UTF-8
 * pieces to be written in order, with the newline that ends a response body: JsonBytes
 * values are passed on as they are (not copied), the text between them is encoded once.
 */
export function spliceJsonBytes(body: Record<string, unknown>): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let text = '{';
  let first = true;
  for (const key in body) {
    const value = body[key];
    if (value instanceof JsonBytes) {
      text += (first ? '' : ',') + JSON.stringify(key) + ':';
      first = false;
      parts.push(Buffer.from(text, 'utf8'));
      for (const part of value.parts) if (part.byteLength > 0) parts.push(part);
      text = '';
      continue;
    }
    const part = value instanceof JsonText ? value.text : JSON.stringify(value);
    if (part === undefined) continue; // undefined and functions are left out, as JSON.stringify does
    text += (first ? '' : ',') + JSON.stringify(key) + ':' + part;
    first = false;
  }
  parts.push(Buffer.from(text + '}\n', 'utf8'));
  return parts;
}
