// The stubs scripts/build.mjs puts in the bundle (scripts/build-stubs.mjs) in place of modules oclif and dockerode
// load but rarely use. Each path a stub stands in for is run on the BUILT CLI (DEBUG=*, help in colour, an error,
// plugins off, an ssh:// Docker engine), and each stub's surface is held to what the installed oclif and dockerode
// use, so an upgrade that needs more of a module fails here instead of in a user's command.
import {mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {afterAll, beforeAll, describe, expect, it} from 'vitest'

import {DOCKERODE_RARELY_USED, LAZY, LAZY_BUILTINS, LAZY_PROXY, WSL_STUB} from '../../scripts/build-stubs.mjs'
import {resourcesConfigMap, submitReadyKueueObjects} from '../builders/workload-cluster.js'
import {FakeGke} from '../fakes/fake-gke.js'
import {FakeKube, type Obj} from '../fakes/fake-kube.js'
import {isolatedEnv, runCli} from '../helpers/cli.js'
import {jobSetCrd} from '../helpers/release-files.js'
import {tempDir} from '../helpers/temp.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const OCLIF_LIB = join(ROOT, 'node_modules/@oclif/core/lib')
// The bundle resolves what its stubs load from dist/, as this require does.
const requireFromDist = createRequire(join(ROOT, 'dist/xpk.js'))

/** A user plugin as oclif finds it in $XDG_DATA_HOME/xpk: config in an .oclifrc (lilconfig), commands found by a
 * glob (tinyglobby), and a plugin pattern of its own (minimatch). Returns XDG_DATA_HOME. */
function userPlugin(): string {
  const data = tempDir('xpk-data-')
  const plugin = join(data, 'xpk', 'node_modules', 'xpk-plugin-hello')
  mkdirSync(join(plugin, 'commands'), {recursive: true})
  writeFileSync(
    join(data, 'xpk', 'package.json'),
    JSON.stringify({private: true, oclif: {schema: 1, plugins: [{name: 'xpk-plugin-hello', type: 'user'}]}}),
  )
  writeFileSync(
    join(plugin, 'package.json'),
    JSON.stringify({name: 'xpk-plugin-hello', version: '1.0.0', dependencies: {'xpk-plugin-child': '1.0.0'}}),
  )
  writeFileSync(join(plugin, '.oclifrc.json'), JSON.stringify({commands: './commands', plugins: ['xpk-plugin-*']}))
  writeFileSync(join(plugin, 'commands', 'hello.js'), 'module.exports = class Hello {}\n')
  return data
}

describe('the built CLI on the paths the stubs stand in for', () => {
  let kube: FakeKube
  let gke: FakeGke
  beforeAll(async () => {
    kube = await FakeKube.start()
    gke = await FakeGke.start(kube.gkeClusterOptions())
    gke.seedCluster({project: 'stub-project', location: 'us-central2', name: 'demo'})
    kube.seed(
      jobSetCrd() as unknown as Obj,
      resourcesConfigMap('demo', {'v5p-8': '4'}) as unknown as Obj,
      ...(submitReadyKueueObjects() as unknown as Obj[]),
    )
  }, 60_000)
  afterAll(async () => {
    await gke?.stop()
    await kube?.stop()
  })

  it('DEBUG=* (debug): oclif traces its start-up under its namespaces, and the command still works', async () => {
    const result = await runCli(['accelerator', 'list', '--family', 'v5p'], {env: isolatedEnv({DEBUG: '*'})})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/ oclif:config loading core plugin from /)
    expect(result.stderr).toMatch(/ oclif:config:xpk using manifest from .*oclif\.manifest\.json/)
    expect(result.stdout).toMatch(/^v5p-8 /m)
  })

  it('help in colour (ansis, supports-color, wrap-ansi, string-width, widest-line, indent-string, ejs)', async () => {
    const env = isolatedEnv({NO_COLOR: undefined, FORCE_COLOR: '1'})
    const command = await runCli(['workload', 'list', '--help'], {env})
    expect(command.code, command.stderr).toBe(0)
    expect(command.stdout).toContain('\u001b[1mUSAGE\u001b[22m')
    expect(command.stdout).toMatch(/^ {2}\$ xpk workload list /m)
    // Long flag descriptions are wrapped and indented under their flag.
    expect(command.stdout).toMatch(/\n {6}\S/)
    expect(command.stdout).not.toContain('<%')
    const root = await runCli(['--help'], {env})
    expect(root.code, root.stderr).toBe(0)
    // Topics in code-point order (the build's ascii-command-sort patch of oclif's sort).
    const topics = [...root.stdout.matchAll(/^ {2}(accelerator|cluster|config|vm|workload) /gm)].map((m) => m[1])
    expect(topics).toEqual(['accelerator', 'cluster', 'config', 'vm', 'workload'])
  })

  it('an error (clean-stack): one message, exit 2, no stack trace', async () => {
    const result = await runCli(['workload', 'delete'], {env: isolatedEnv()})
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^Error: /)
    expect(result.stderr).not.toMatch(/^\s+at /m)
    expect(result.stderr).not.toMatch(/TypeError|is not a function/)
  })

  it('plugins are off: a user plugin in $XDG_DATA_HOME/xpk is never read, globbed or run', async () => {
    const env = isolatedEnv({XDG_DATA_HOME: userPlugin(), DEBUG: 'oclif:*'})
    const result = await runCli(['accelerator', 'list', '--family', 'v5p'], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/ oclif:config loading core plugin from /)
    expect(result.stderr).not.toMatch(/xpk-plugin-hello|xpk-plugin-child/)
    expect(result.stdout).toContain('v5p-8')
  })

  it('an ssh:// Docker engine (docker-modem ssh, loaded from disk): the connection is tried and its failure reported', async () => {
    const scriptDir = tempDir('xpk-script-')
    writeFileSync(join(scriptDir, 'train.py'), 'print(1)\n')
    const result = await runCli(
      [
        ...['workload', 'create', '--project', 'stub-project', '--zone', 'us-central2-b', '--cluster', 'demo'],
        ...['--workload', 'w1', '--tpu-type', 'v5p-8', '--command', 'python3 train.py', '--dry-run'],
        // Registries on a closed loopback port: nothing is looked up beyond this machine.
        ...['--script-dir', scriptDir, '--base-docker-image', '127.0.0.1:9/base:1', '--registry', '127.0.0.1:9/x'],
      ],
      {
        env: isolatedEnv({
          DOCKER_HOST: 'ssh://nobody@127.0.0.1:9',
          XPK_GKE_ENDPOINT: `http://${gke.endpoint}`,
          XPK_ACCESS_TOKEN: kube.token,
        }),
        timeoutMs: 60_000,
      },
    )
    expect(result.stderr).toContain('Cannot reach the Docker engine at ssh://***@127.0.0.1:9 (ECONNREFUSED)')
    expect(result.stderr).not.toMatch(/Cannot find module|is not a function|TypeError/)
  })
})

/** The names `<module>_1.<name>` oclif's compiled lib reads of a module it requires. */
function oclifUses(module: string): Set<string> {
  const variable = `${module.replace(/^node:/, 'node_').replace(/[-/]/g, '_')}_1`
  const names = new Set<string>()
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, {withFileTypes: true})) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (entry.name.endsWith('.js')) {
        const source = readFileSync(path, 'utf8')
        if (!source.includes(`require("${module}")`)) continue
        for (const match of source.matchAll(new RegExp(`\\b${variable}\\.(\\w+)`, 'g'))) names.add(match[1]!)
      }
    }
  }
  walk(OCLIF_LIB)
  return names
}

/** A stub's module.exports, evaluated with the real module behind its load(). */
function evaluateStub(source: string, real: () => unknown): Record<string, unknown> {
  const module = {exports: {} as Record<string, unknown>}
  new Function('module', 'load', source)(module, real)
  return module.exports
}

describe('each stub offers what the installed oclif and dockerode use of it', () => {
  const requireFromOclif = createRequire(join(OCLIF_LIB, 'index.js'))

  it.each(Object.keys(LAZY))('%s: still required by oclif, and every name oclif reads is there', (name) => {
    const used = oclifUses(name)
    const real = requireFromOclif(name) as Record<string, unknown>
    const stub = evaluateStub(LAZY[name as keyof typeof LAZY], () => real)
    // A default import of a CommonJS stub is the stub itself (no __esModule): the module's own callable or object.
    const offered = (name: string) => (name === 'default' ? stub : stub[name])
    expect(used.size, `oclif no longer reads ${name}: drop its stub`).toBeGreaterThan(0)
    for (const member of used) {
      expect(offered(member), `${name}.${member}`).toBeDefined()
      if (LAZY[name as keyof typeof LAZY] !== LAZY_PROXY && member !== 'default')
        expect(typeof stub[member], `${name}.${member}`).toBe(typeof real[member])
    }
  })

  it('debug: the stub makes loggers oclif can call and extend, and forwards enable/disable', () => {
    const real = requireFromOclif('debug') as {enabled: (ns: string) => boolean}
    const createDebug = evaluateStub(LAZY.debug, () => real) as unknown as ((ns: string) => {
      namespace: string
      extend: (sub: string) => {namespace: string}
    }) & {enable: unknown; disable: unknown; enabled: unknown}
    const log = createDebug('oclif')
    expect(log.extend('config').namespace).toBe('oclif:config')
    for (const member of ['enable', 'disable', 'enabled'] as const) expect(typeof createDebug[member]).toBe('function')
  })

  it.each(LAZY_BUILTINS)('%s: still required by oclif, and every name oclif reads exists', (name) => {
    const used = oclifUses(name)
    expect(used.size, `oclif no longer reads ${name}: drop its stub`).toBeGreaterThan(0)
    const real = requireFromOclif(name) as Record<string, unknown>
    for (const member of used) expect(real[member], `${name}.${member}`).toBeDefined()
  })

  it('wsl-utils: the stub exports every name oclif takes from it, and the real package still has those it forwards', () => {
    const source = readFileSync(join(OCLIF_LIB, 'util/os.js'), 'utf8')
    const used = new Set([...source.matchAll(/import\('wsl-utils'\)\)\.(\w+)/g)].map((m) => m[1]!))
    const stubbed = new Set([...WSL_STUB.matchAll(/export const (\w+)/g)].map((m) => m[1]!))
    expect(used.size).toBeGreaterThan(0)
    for (const name of used) expect(stubbed.has(name), `wsl-utils.${name}`).toBe(true)
    const forwarded = [...WSL_STUB.matchAll(/\(await import\(REAL\)\)\.(\w+)/g)].map((m) => m[1]!)
    const realPackage = readFileSync(requireFromOclif.resolve('wsl-utils'), 'utf8')
    for (const name of forwarded)
      expect(realPackage, `wsl-utils.${name}`).toMatch(new RegExp(`export (const|async function|function) ${name}\\b`))
  })

  it.each(Object.entries(DOCKERODE_RARELY_USED))(
    "dockerode's %s: still required where the build expects it, and loads from dist/ with what the caller uses",
    (path, lazy) => {
      const importer = lazy.importer.source.includes('docker-modem')
        ? 'docker-modem/lib/modem.js'
        : 'dockerode/lib/docker.js'
      const importerFile = requireFromDist.resolve(importer)
      const source = readFileSync(importerFile, 'utf8')
      expect(lazy.importer.test(importerFile)).toBe(true)
      expect(source).toContain(`require('${path}')`)
      // The stub's runtime expression, evaluated as the bundle does (`fromDisk` is its require).
      const fromDisk = requireFromDist
      const real = new Function('fromDisk', `return ${lazy.runtime}`)(fromDisk) as Record<string, unknown> &
        (() => void)
      const variable = new RegExp(`(\\w+) = require\\('${path.replace('.', '\\.')}'\\)`).exec(source)![1]!
      const members = [...source.matchAll(new RegExp(`\\b${variable}\\.(\\w+)`, 'g'))].map((m) => m[1]!)
      if (members.length === 0) expect(typeof real).toBe('function')
      for (const member of members) expect(real[member], `${path}.${member}`).toBeDefined()
    },
  )
})
