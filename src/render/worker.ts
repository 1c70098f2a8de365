// piscina worker entry: renders batches of messages (and highlights search
// results) off the realm actor's thread. Loaded as dist/src/render/worker.js.

import type { MessagePort } from 'node:worker_threads';
import { highlightMatches } from './highlight.js';
import { renderMarkdown, warmUp } from './markdown.js';
import type { RenderContext, RenderResult } from './types.js';

interface TaskBase {
  /** Told when the task starts running, so the budget excludes thread start-up. */
  started?: MessagePort;
}

export interface RenderTask extends TaskBase {
  kind: 'render';
  items: Array<{ content: string; ctx: RenderContext }>;
}

export interface HighlightTask extends TaskBase {
  kind: 'highlight';
  items: Array<{ html: string; terms: string[] }>;
}

export type WorkerTask = RenderTask | HighlightTask;

// Build the emoji tables and compile the big regexes once per thread, before
// the first task arrives.
warmUp();

export default function runTask(task: WorkerTask): RenderResult[] | string[] {
  if (task.started) {
    task.started.postMessage('started');
    task.started.close();
  }
  if (task.kind === 'highlight') return task.items.map((item) => highlightMatches(item.html, item.terms));
  return task.items.map((item) => renderMarkdown(item.content, item.ctx));
}
