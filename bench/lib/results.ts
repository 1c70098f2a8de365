// The shape of one run's results (written whole to bench/results/<stamp>.json).

import type { ClusterOverheadResult } from '../workloads/clusterOverhead.js';
import type { IdleWorkloadResult } from '../workloads/idle.js';
import type { RegisterResult } from '../workloads/register.js';
import type { RenderWorkloadResult } from '../workloads/render.js';
import type { SendsResult } from '../workloads/sends.js';
import type { ShardsResult } from '../workloads/shards.js';
import type { CommitFigures, ThroughputFigures } from './baselines.js';
import { errorText } from './progress.js';

export type Outcome<T> = { ok: true; value: T } | { ok: false; reason: string };

export interface SeedingFigures {
  realm: string;
  users: number;
  channels: number;
  via: string;
  seconds: number;
  usersPerSecond: number;
}

export interface RunResults {
  startedAt: string;
  finishedAt?: string;
  commit: string;
  mode: string;
  quick: boolean;
  /** The phases run, when not all of them were. */
  partial?: string;
  machine: { cpus: number; cpuModel: string; memoryGb: number; node: string; platform: string };
  options: Record<string, unknown>;
  baselines: {
    uws?: Outcome<ThroughputFigures>;
    pgSerial?: Outcome<CommitFigures>;
    pgConcurrent?: Outcome<CommitFigures>;
  };
  seeding: SeedingFigures[];
  notes: string[];
  workloads: {
    sends?: Outcome<SendsResult>;
    usersMe?: Outcome<ThroughputFigures>;
    register?: Outcome<RegisterResult>;
    idle?: Outcome<IdleWorkloadResult>;
    render?: Outcome<RenderWorkloadResult>;
    clusterOverhead?: Outcome<ClusterOverheadResult>;
    shards?: Outcome<ShardsResult>;
  };
  rows?: Row[];
}

export type RowResult = 'PASS' | 'MISS' | 'PASS*' | 'n/a' | '';

export interface Row {
  measure: string;
  value: string;
  baseline: string;
  ratio: string;
  bar: string;
  result: RowResult;
  note?: string;
  /** Numbers for the RESULTS.md line. */
  figure?: number;
  ratioValue?: number;
}

/** Runs a workload; a failure becomes the reason its row shows n/a instead of ending the run. */
export async function attempt<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (err) {
    return { ok: false, reason: errorText(err) };
  }
}

export function failed<T>(reason: string): Outcome<T> {
  return { ok: false, reason };
}
