// piscina worker entry: renders batches of messages (and highlights search
// results) off the realm actor's thread. Loaded as dist/src/render/worker.js.

import { highlightMatches } from './highlight.js';
import { renderMarkdown, warmUp } from './markdown.js';
import type { RenderContext, RenderResult } from './types.js';

/**
 * Where the task writes the time it starts running (Date.now(), in slot `slot` of a
 * Float64Array over `buffer`), so that its budget excludes thread start-up. Shared memory
 * rather than a message: a MessageChannel per task cost the actor's thread more than the
 * render of a short message.
 */
export interface StartSlot {
  buffer: SharedArrayBuffer;
  slot: number;
}

interface TaskBase {
  started?: StartSlot;
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

const views = new WeakMap<SharedArrayBuffer, Float64Array>();

function markStarted({ buffer, slot }: StartSlot): void {
  let view = views.get(buffer);
  if (!view) views.set(buffer, (view = new Float64Array(buffer)));
  view[slot] = Date.now();
}

export default function runTask(task: WorkerTask): RenderResult[] | string[] {
  if (task.started) markStarted(task.started);
  if (task.kind === 'highlight') return task.items.map((item) => highlightMatches(item.html, item.terms));
  return task.items.map((item) => renderMarkdown(item.content, item.ctx));
}
