// The largest request head (request line and headers) the front reads. uWebSockets.js takes it
// from UWS_HTTP_MAX_HEADERS_SIZE once, when its native module loads, and answers a larger
// head itself (431, before any handler runs). Its own default, 4 KB, refuses ordinary
// browsers with a few cookies; ours is 64 KB unless the operator sets the variable. Process
// entries import this module first, ahead of anything that loads uWebSockets.js.
export const DEFAULT_MAX_HEAD_BYTES = 64 * 1024;

process.env.UWS_HTTP_MAX_HEADERS_SIZE ||= String(DEFAULT_MAX_HEAD_BYTES);

export const maxHeadBytes = (): number => Number(process.env.UWS_HTTP_MAX_HEADERS_SIZE);
