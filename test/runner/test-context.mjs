// Preloaded into every test process (`--import`, before any test file loads node:test): the same test context as
// node:test keeps, without its cost on every promise.
//
// node:test (Node 20) finds the test or suite a call of test(), describe() or a hook belongs to, and the test an
// uncaught error fails, with an async hook: `init` maps every new async resource (every promise) to its trigger's
// test in a Map, `destroy` removes it. A hook with `destroy` makes V8 track the garbage collection of every
// promise (registerDestroyHook), which in a test on the simulator, with millions of promises, was a seventh of its
// CPU (test/settlement/fee-grid-quotes.test.ts: registerDestroyHook 2.0 s, the hook's init 1.2 s, its destroy
// 0.25 s of 29.6 s, and part of the garbage collector's 3.1 s).
//
// So node:test's hook is given to it in another form: the test that owns a resource is carried on the resource
// itself, as AsyncLocalStorage carries its store (an `init` hook alone, no destroy tracking: the owner goes away
// with the resource), and written into node:test's Map only when node:test reads it, at the one id it reads
// (executionAsyncId(), when a test or hook is declared or an error is uncaught). node:test then reads what its own
// hook would have mapped: the owner of the resource running now, by the chain of resources that led to it.
//
// Only node:test's own hook (created from its harness, with exactly init and destroy) is replaced; on a Node whose
// harness does not create its hook that way, nothing changes. HUSH_TEST_CONTEXT=node keeps node:test's hook.
import asyncHooks from 'node:async_hooks';

if (process.env.HUSH_TEST_CONTEXT !== 'node') {
  const { createHook, executionAsyncId, executionAsyncResource } = asyncHooks;
  /** The id of the resource node:test mapped (a test, or its reporter's scope) that owns the one it is set on. */
  const owner = Symbol('hush.test.owner');
  let harness = null;

  asyncHooks.createHook = function hushCreateHook(callbacks) {
    const fromHarness = !harness && Object.keys(callbacks ?? {}).sort().join() === 'destroy,init' && /internal\/test_runner\/harness/.test(new Error().stack ?? '');
    if (!fromHarness) return createHook.call(this, callbacks);
    harness = callbacks;
    return createHook({
      init(asyncId, type, triggerAsyncId, resource) {
        // A test (or suite) is its own owner, mapped at once: node:test keeps it until the test ends.
        if (type === 'Test') {
          harness.init(asyncId, type, triggerAsyncId, resource);
          resource[owner] = asyncId;
          return;
        }
        // Else the owner of the resource running now (AsyncLocalStorage's rule), or the one running itself: a
        // resource node:test mapped before this hook (its reporter's scope) is found by its id.
        const current = executionAsyncResource();
        resource[owner] = current?.[owner] ?? executionAsyncId();
      },
    });
  };

  asyncHooks.executionAsyncId = function hushExecutionAsyncId() {
    const id = executionAsyncId();
    if (harness) {
      const by = executionAsyncResource()?.[owner];
      // node:test's own init: maps `id` to what `by` is mapped to, if anything (nothing for resources no test owns).
      if (by !== undefined && by !== id) harness.init(id, 'HUSH_TEST_CONTEXT', by, {});
    }
    return id;
  };
}
