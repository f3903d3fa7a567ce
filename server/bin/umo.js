#!/usr/bin/env node
// `npx umo …`: the operator's command line and the stdio MCP server, from the built sources
// (`npm install` builds them).
import "../dist/cli.js"
