// Runner side of the load-generating child processes.

import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Command, FromAgent, Job } from './agent-protocol.js';
import { trackChild } from './procs.js';

const AGENT_ENTRY = fileURLToPath(new URL('../agent/main.js', import.meta.url));

export class Agent {
  private readonly child: ChildProcess;
  private readonly events = new Map<string, unknown[]>();
  private readonly waiters = new Map<string, ((data: unknown) => void)[]>();
  private readonly done: Promise<unknown>;
  private failure: Error | null = null;

  constructor(job: Job) {
    this.child = fork(AGENT_ENTRY, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    trackChild(this.child);
    this.done = new Promise((resolve, reject) => {
      this.child.on('message', (message: FromAgent) => {
        if (message.type === 'result') resolve(message.data);
        else if (message.type === 'error') reject(new Error(`load agent failed: ${message.message}`));
        else this.deliver(message.name, message.data);
      });
      this.child.on('exit', (code, signal) => {
        const err = new Error(`load agent exited (${signal ?? code}) before reporting`);
        this.failure = err;
        reject(err);
        for (const list of this.waiters.values()) list.splice(0);
      });
    });
    this.done.catch(() => {}); // observed through result()/waitFor(); avoid an unhandled rejection here
    this.child.send({ type: 'job', job });
  }

  /** Runs one job to completion in a fresh agent. */
  static async run<T>(job: Job): Promise<T> {
    const agent = new Agent(job);
    try {
      return await agent.result<T>();
    } finally {
      agent.close();
    }
  }

  private deliver(name: string, data: unknown): void {
    const waiting = this.waiters.get(name);
    if (waiting && waiting.length > 0) {
      (waiting.shift() as (data: unknown) => void)(data);
      return;
    }
    const queued = this.events.get(name) ?? [];
    queued.push(data);
    this.events.set(name, queued);
  }

  /** Resolves with the next event of that name (or one already received). */
  waitFor<T>(name: string, timeoutMs = 600_000): Promise<T> {
    const queued = this.events.get(name);
    if (queued && queued.length > 0) return Promise.resolve(queued.shift() as T);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`load agent sent no "${name}" within ${timeoutMs} ms`)), timeoutMs);
      const list = this.waiters.get(name) ?? [];
      list.push((data) => {
        clearTimeout(timer);
        resolve(data as T);
      });
      this.waiters.set(name, list);
      this.done.catch((err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
    });
  }

  command(command: Command): void {
    if (this.child.connected) this.child.send({ type: 'command', command });
  }

  result<T>(): Promise<T> {
    return this.done as Promise<T>;
  }

  close(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }
}
