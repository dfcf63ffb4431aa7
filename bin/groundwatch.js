#!/usr/bin/env node
// The command line, from the compiled build (npm run build; `npm pack` and `npm ci` build it).
import "../dist/cli/run.js";
