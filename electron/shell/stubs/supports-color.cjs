/* global module */
// `debug` (deep in @anthropic-ai/mcpb's tree) tries `require('supports-color')` for terminal colours
// and does without it; the desktop app has no terminal, so its bundle gets this instead of a require
// of a package it does not ship.
module.exports = {};
