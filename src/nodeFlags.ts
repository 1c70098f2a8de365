// V8 flags every server process runs with: `npm start`, the processes the cluster launcher
// starts, and the benchmark's targets. V8 does not take them in NODE_OPTIONS or once the
// process runs, so they go on the command line (package.json's start script repeats them).
//
// --initial-old-space-size: the first full (mark-compact) collection comes when the old
// generation reaches this size, and later ones not below it. A busy server promotes what
// lives through a commit or a poll (about 10 MB/s at 1,500 sends/s); from V8's default
// starting size that meant a full collection every 3 s or so, each stalling the event loop
// 10 to 20 ms and holding up the sends in flight, enough to set the send p99. From 512 MB
// they come about once every 40 s at that rate.
export const SERVER_NODE_FLAGS: readonly string[] = ['--initial-old-space-size=512'];
