// Entry of a load-generating child process. The runner forks it, sends one job, may send
// commands while the job runs, and receives events and one result over IPC.

import { EventEmitter } from 'node:events';
import type { FromAgent, Job, ToAgent } from '../lib/agent-protocol.js';
import { runIdlePolls } from './idle-polls.js';
import { runFanoutSubscribers } from './fanout-subscribers.js';
import { runClosedLoop, runOpenLoop } from './loops.js';
import { runSubscribers } from './subscribers.js';

const commands = new EventEmitter();

function send(message: FromAgent): void {
  process.send?.(message);
}

function emit(name: string, data: unknown): void {
  send({ type: 'event', name, data });
}

function run(job: Job): Promise<unknown> {
  switch (job.kind) {
    case 'closed-loop':
      return runClosedLoop(job);
    case 'open-loop':
      return runOpenLoop(job);
    case 'subscribers':
      return runSubscribers(job, commands, emit);
    case 'idle-polls':
      return runIdlePolls(job, commands, emit);
    case 'fanout-subscribers':
      return runFanoutSubscribers(job, commands, emit);
  }
}

process.on('message', (message: ToAgent) => {
  if (message.type === 'command') {
    commands.emit('command', message.command);
    return;
  }
  run(message.job).then(
    (data) => send({ type: 'result', data }),
    (err: unknown) => send({ type: 'error', message: err instanceof Error ? err.stack ?? err.message : String(err) }),
  );
});

// The runner going away (crash, Ctrl-C) must not leave load running.
process.on('disconnect', () => process.exit(0));
