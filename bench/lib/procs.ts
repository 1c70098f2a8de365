// Child processes the runner starts, and what /proc says about them.

import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';

const children = new Set<ChildProcess>();
const detachedGroups = new WeakSet<ChildProcess>();

/** Remembers a child so `killTrackedChildren` can stop it on exit or Ctrl-C. */
export function trackChild(child: ChildProcess): void {
  children.add(child);
  child.on('exit', () => children.delete(child));
}

function alive(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/** Signals a child (and its process group when it was started detached). */
export function signalChild(child: ChildProcess, signal: NodeJS.Signals, group: boolean): void {
  if (!alive(child) || child.pid === undefined) return;
  try {
    if (group) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    child.kill(signal); // the group may already be gone; fall back to the process itself
  }
}

/** SIGTERM, then SIGKILL after `graceMs`. Detached children are signalled as a group. */
export async function stopChild(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (!alive(child)) return;
  const group = detachedGroups.has(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  signalChild(child, 'SIGTERM', group);
  const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
  if ((await Promise.race([exited, timer])) === 'timeout') {
    signalChild(child, 'SIGKILL', group);
    await exited;
  }
}

/** For children spawned with `detached: true`: stop the whole process group. */
export function markDetachedGroup(child: ChildProcess): void {
  detachedGroups.add(child);
}

export async function killTrackedChildren(): Promise<void> {
  await Promise.all([...children].map((child) => stopChild(child, 3000)));
}

/** The process and all its descendants (Linux /proc). */
export function processTree(pid: number): number[] {
  const all = [pid];
  for (let i = 0; i < all.length; i++) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${all[i]}/task`);
    } catch {
      continue; // exited meanwhile
    }
    for (const tid of tasks) {
      try {
        const kids = readFileSync(`/proc/${all[i]}/task/${tid}/children`, 'utf8').trim();
        if (kids) all.push(...kids.split(/\s+/).map(Number));
      } catch {
        continue; // thread gone
      }
    }
  }
  return all;
}

/** Resident set size of the process tree in bytes, or null off Linux. */
export function treeRssBytes(pid: number): number | null {
  let total = 0;
  let seen = false;
  for (const p of processTree(pid)) {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (match) {
        total += Number(match[1]) * 1024;
        seen = true;
      }
    } catch {
      continue; // exited meanwhile
    }
  }
  return seen ? total : null;
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system) of the process tree in ms, or null off Linux. */
export function treeCpuMs(pid: number): number | null {
  let ticks = 0;
  let seen = false;
  for (const p of processTree(pid)) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
      seen = true;
    } catch {
      continue; // exited meanwhile
    }
  }
  return seen ? (ticks * 1000) / CLOCK_TICKS_PER_SECOND : null;
}

/** Soft open-file limit of a process, or null if unknown. */
export function openFileLimit(pid: number = process.pid): number | null {
  try {
    const match = /Max open files\s+(\d+|unlimited)/.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    if (!match) return null;
    return match[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(match[1]);
  } catch {
    return null;
  }
}

/** CPU a process tree used over an interval. */
export interface CpuReading {
  /** CPU time (user + system) summed over every process of the tree, ms. */
  cpuMs: number;
  wallMs: number;
  /** cpuMs as a share of one core, %. */
  percent: number;
}

/**
 * Measures the CPU a process tree uses over an interval, from /proc: utime + stime of
 * every process of the tree at start() and again at read(). Threads count with their
 * process; a process that exits during the interval loses what it used.
 */
export class CpuMeter {
  private startCpu: number | null = null;
  private startWall = 0;

  constructor(private readonly pid: number | undefined) {}

  start(): void {
    this.startCpu = this.pid === undefined ? null : treeCpuMs(this.pid);
    this.startWall = performance.now();
  }

  /** CPU since start(), or null when unknown (no pid, off Linux, or start() not called). */
  read(): CpuReading | null {
    if (this.pid === undefined || this.startCpu === null) return null;
    const end = treeCpuMs(this.pid);
    if (end === null) return null;
    const cpuMs = end - this.startCpu;
    const wallMs = performance.now() - this.startWall;
    return { cpuMs, wallMs, percent: wallMs > 0 ? (100 * cpuMs) / wallMs : 0 };
  }

  /** Percent of one core since start(), or null when unknown. */
  stop(): number | null {
    return this.read()?.percent ?? null;
  }
}

/** CPU per operation in µs, or null when the CPU is unknown or nothing was done. */
export function cpuMicrosPerOp(reading: CpuReading | null, operations: number): number | null {
  if (!reading || operations <= 0) return null;
  return (1000 * reading.cpuMs) / operations;
}
