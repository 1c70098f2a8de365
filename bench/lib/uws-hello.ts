// The raw uWebSockets.js baseline: a hello world on an ephemeral port, run as its own
// process so it never shares an event loop with the load generator. Prints {"port":N}.

import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js';

let listenSocket: us_listen_socket | null = null;

App()
  .any('/*', (res) => {
    res.end('Hello World!');
  })
  .listen('127.0.0.1', 0, (socket) => {
    if (!socket) {
      process.stderr.write('uws-hello: could not listen\n');
      process.exit(1);
    }
    listenSocket = socket;
    process.stdout.write(JSON.stringify({ port: us_socket_local_port(socket) }) + '\n');
  });

process.on('SIGTERM', () => {
  if (listenSocket) us_listen_socket_close(listenSocket);
  process.exit(0);
});
