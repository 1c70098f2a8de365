// JSON text made ahead of time. A large part of a response (register's ten thousand users)
// is kept as text between requests and spliced into the body, instead of being rebuilt as
// objects and serialized again for every request.

/** A value whose JSON text is already known; written into a response body as is. */
export class JsonText {
  constructor(readonly text: string) {}
}

/** Whether any top-level value of a body is JsonText, so the body needs splicing. */
export function hasJsonText(body: Record<string, unknown>): boolean {
  for (const key in body) if (body[key] instanceof JsonText) return true;
  return false;
}

/**
 * The JSON text of a body whose top-level values may be JsonText: the same text
 * JSON.stringify would give had those values been the objects they stand for.
 */
export function spliceJson(body: Record<string, unknown>): string {
  let text = '{';
  for (const key in body) {
    const value = body[key];
    const part = value instanceof JsonText ? value.text : JSON.stringify(value);
    if (part === undefined) continue; // undefined and functions are left out, as JSON.stringify does
    text += (text.length > 1 ? ',' : '') + JSON.stringify(key) + ':' + part;
  }
  return text + '}';
}
