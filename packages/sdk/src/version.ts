/**
 * The package's version, as `hush --version` answers it. A constant, not a read of package.json: the CLI also
 * runs bundled (tests, a partner's own bundler), where no package.json sits beside the module.
 * test/sdk/sdk-package.test.ts holds it equal to package.json's.
 */
export const SDK_VERSION = '0.4.0';
