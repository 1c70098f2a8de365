// ESLint rules for the floors of src/ (see the "Where things live" section of DESIGN.md and
// src/README.md): an import goes from a floor to one below it, never up; nothing in src/
// imports cluster/; model/ imports nothing else of src/; and no import circles between files
// of src/ (type-only imports count: they tie files together just the same).
import fs from 'node:fs';
import path from 'node:path';

/** Bottom to top. Files at the top of src/ (config.ts, log.ts) sit with model/ at the bottom. */
export const FLOORS = [
  ['model', 'config.ts', 'log.ts'],
  ['storage'],
  ['integrations'],
  ['render'],
  ['db'],
  ['permissions'],
  ['http'],
  ['jobs'],
  ['events'],
  ['realm'],
  ['auth'],
  ['views'],
  ['queries'],
  ['actions'],
  ['register'],
  ['api'],
  ['worker'],
  ['main.ts'],
];

/** Imports that go up on purpose, each with its reason (also listed in DESIGN.md). */
export const EXCEPTIONS = [];

const rankOf = new Map(FLOORS.flatMap((names, rank) => names.map((n) => [n, rank])));
const SRC = path.resolve('src');
const IMPORT_RE = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?'(\.[^']+)'/g;

const inSrc = (file) => file.startsWith(SRC + path.sep);
const floorOf = (file) => path.relative(SRC, file).split(path.sep)[0];
const resolveSpec = (from, spec) => path.resolve(path.dirname(from), spec.replace(/\.js$/, '.ts'));

let graphCache = null;
/** Files of src/ that lie on an import circle, found once per lint run. */
function filesOnCycles() {
  if (graphCache) return graphCache;
  const edges = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (p.endsWith('.ts')) {
        const text = fs.readFileSync(p, 'utf8');
        edges.set(p, [...text.matchAll(IMPORT_RE)].map((m) => resolveSpec(p, m[1])).filter(inSrc));
      }
    }
  };
  walk(SRC);
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], onStack = new Set(), cycles = new Map();
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!edges.has(w)) continue;
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1) for (const f of scc) cycles.set(f, scc.map((x) => path.relative(SRC, x)));
    }
  };
  for (const v of edges.keys()) if (!idx.has(v)) visit(v);
  graphCache = cycles;
  return cycles;
}

const floorsRule = {
  meta: { type: 'problem', schema: [], messages: {
    up: "{{from}} may not import {{to}}: '{{fromFloor}}' sits below '{{toFloor}}' (an import goes down a floor, never up; see src/README.md)",
    cluster: 'src/ knows nothing of the cluster: {{from}} may not import {{to}}',
    model: 'model/ imports nothing else of src/: {{from}} may not import {{to}}',
    unknown: "{{to}} is in no floor of src/: add '{{toFloor}}' to FLOORS in eslint.floors.js and to DESIGN.md",
  } },
  create(context) {
    const file = path.resolve(context.filename);
    if (!inSrc(file)) return {};
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = resolveSpec(file, spec);
      const data = { from: path.relative(SRC, file), to: path.relative(process.cwd(), target) };
      if (!inSrc(target)) {
        if (target.startsWith(path.resolve('cluster') + path.sep)) context.report({ node, messageId: 'cluster', data });
        return;
      }
      const fromFloor = floorOf(file), toFloor = floorOf(target);
      if (fromFloor === toFloor) return;
      if (!rankOf.has(toFloor)) return context.report({ node, messageId: 'unknown', data: { ...data, toFloor } });
      if (fromFloor === 'model') return context.report({ node, messageId: 'model', data });
      if (EXCEPTIONS.some((e) => e.from === data.from && e.to === path.relative(SRC, target))) return;
      if (rankOf.get(toFloor) >= rankOf.get(fromFloor)) context.report({ node, messageId: 'up', data: { ...data, fromFloor, toFloor } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

const cycleRule = {
  meta: { type: 'problem', schema: [], messages: { cycle: 'This file is on an import circle among: {{files}}' } },
  create(context) {
    const file = path.resolve(context.filename);
    if (!inSrc(file)) return {};
    return {
      Program(node) {
        const cycle = filesOnCycles().get(file);
        if (cycle) context.report({ node, messageId: 'cycle', data: { files: cycle.join(' → ') } });
      },
    };
  },
};

export default { rules: { 'import-floors': floorsRule, 'no-import-cycle': cycleRule } };
