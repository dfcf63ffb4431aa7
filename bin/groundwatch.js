#!/usr/bin/env node
// groundwatch ships TypeScript sources and runs them through tsx's loader.
import { register } from "tsx/esm/api";

register();
await import("../src/cli/run.ts");
