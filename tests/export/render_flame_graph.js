// Renders collapsed stacks ("a;b;c N" lines) to an SVG flame graph with the npm package
// flamegraph@0.1.0, a JavaScript port of Brendan Gregg's flamegraph.pl (its svg() takes
// collapsed lines; later versions take V8 profiles only), and prints the SVG.
//
// usage: node render_flame_graph.js FLAMEGRAPH_PACKAGE_DIR STACKS_FILE
'use strict';
const fs = require('fs');

const [packageDir, stacksPath] = process.argv.slice(2);
const flamegraph = require(packageDir);
const lines = fs.readFileSync(stacksPath, 'utf8').split('\n').filter((line) => line.length);
// minwidth 0: no frame is dropped as too narrow to draw, so every frame's count is there.
process.stdout.write(flamegraph.svg(lines, {minwidth: 0}));
