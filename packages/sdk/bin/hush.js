#!/usr/bin/env node
// The CLI is built into dist/ (prepack; the repo's prepare). This file exists before the build, so npm links the bin on install.
import '../dist/cli.js';
