/** bench/support/profile-categories.ts: each sampled frame lands in the category docs/performance.md reads it as. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { categoryOf } from '../../bench/support/profile-categories.ts';

const frame = (functionName: string, url = '') => ({ functionName, url });

test('frames are grouped by what ran them', () => {
  assert.equal(categoryOf(frame('(idle)')), 'idle');
  assert.equal(categoryOf(frame('(garbage collector)')), 'garbage collector');
  assert.equal(categoryOf(frame('wasm-function[3116]', 'wasm://wasm/022a9842')), 'PGlite WebAssembly');
  assert.equal(categoryOf(frame('parse', 'file:///w/node_modules/@electric-sql/pglite/dist/chunk-Y6PULSM7.js')), 'PGlite JavaScript');
  assert.equal(categoryOf(frame('writev')), 'socket writes');
  assert.equal(categoryOf(frame('fstat')), 'file system calls');
  assert.equal(categoryOf(frame('compileMessage', 'file:///w/src/chain/fast-transaction.ts')), 'Hush chain');
  assert.equal(categoryOf(frame('route', 'file:///w/node_modules/find-my-way/index.js')), 'Fastify and its parts');
  assert.equal(categoryOf(frame('onSendHook', 'file:///w/node_modules/fastify/lib/reply.js')), 'Fastify and its parts');
  assert.equal(categoryOf(frame('x', 'file:///w/node_modules/@fastify/rate-limit/index.js')), 'Fastify and its parts');
  assert.equal(categoryOf(frame('decode', 'file:///w/node_modules/@solana/kit/dist/index.node.mjs')), 'package @solana/kit');
  assert.equal(categoryOf(frame('emit', 'node:events')), 'Node events');
  assert.equal(categoryOf(frame('parserOnIncoming', 'node:_http_server')), 'Node _http_server');
  assert.equal(categoryOf(frame('(program)')), 'native (program)');
});
