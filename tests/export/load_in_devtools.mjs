// Loads a Chrome trace JSON with the trace engine of Chrome DevTools' Performance panel
// (npm @paulirish/trace_engine), the model behind its timeline, and prints what it made of
// each thread as JSON: {"threads": [{"name": NAME, "entries": N, "slice_s": {SLICE: seconds}}]}.
//
// usage: node load_in_devtools.mjs TRACE_ENGINE_DIR TRACE.json
import fs from 'node:fs';
import path from 'node:path';
import {pathToFileURL} from 'node:url';

const [engineDir, tracePath] = process.argv.slice(2);
// The engine measures layout with DOMRect, which Node lacks; traces of ours never use it.
globalThis.DOMRect ??= class {
  constructor(x = 0, y = 0, width = 0, height = 0) {
    Object.assign(this, {x, y, width, height});
  }
};
const Trace = await import(pathToFileURL(path.join(engineDir, 'models/trace/trace.js')).href);
const events = JSON.parse(fs.readFileSync(tracePath, 'utf8')).traceEvents;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const threads = [];
for (const process of model.parsedTrace().data.Renderer.processes.values()) {
  for (const thread of process.threads.values()) {
    const sliceSeconds = {};
    for (const entry of thread.entries) {
      sliceSeconds[entry.name] = (sliceSeconds[entry.name] ?? 0) + (entry.dur ?? 0) / 1e6;
    }
    threads.push({name: thread.name, entries: thread.entries.length, slice_s: sliceSeconds});
  }
}
console.log(JSON.stringify({threads}));
