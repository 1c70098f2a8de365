// The end of an answer to HEAD: the GET's headers and length, no body.
import type { HttpResponse } from 'uWebSockets.js';

/**
 * Ends a HEAD answer (inside the caller's cork) with the length its GET would have. The length
 * goes as a plain header: uWebSockets' endWithoutBody(length) leaves the connection unusable
 * for the next request on it, which a plain header keeps working (keep-alive).
 */
export function endHead(res: HttpResponse, length: number): void {
  res.writeHeader('Content-Length', String(length));
  res.endWithoutBody();
}
