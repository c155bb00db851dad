// Checks what `--json` printed against the committed JSON Schemas (test/golden/contract/schemas, generated from
// the result types by test/helpers/schema-generator.ts and kept current by test/contract/json-schemas.test.ts).
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Ajv, type ValidateFunction} from 'ajv'
import {load} from 'js-yaml'

export const SCHEMA_DIR = fileURLToPath(new URL('../golden/contract/schemas', import.meta.url))

const compiled = new Map<string, ValidateFunction>()
let ajv: Ajv | undefined

/** The committed schema of that name (`cluster-create`, `error`, ...), compiled once per process. */
function validator(name: string): ValidateFunction {
  let validate = compiled.get(name)
  if (!validate) {
    const schema = JSON.parse(readFileSync(join(SCHEMA_DIR, `${name}.json`), 'utf8')) as object
    ajv ??= new Ajv({allErrors: true, strict: true, allowUnionTypes: true})
    validate = ajv.compile(schema)
    compiled.set(name, validate)
  }
  return validate
}

/** Whether a schema of that name is committed. */
export function hasSchema(name: string): boolean {
  return existsSync(join(SCHEMA_DIR, `${name}.json`))
}

/** The ways `value` breaks the schema of that name, one line each (JSON pointer and what is wrong); [] if none. */
export function schemaProblems(name: string, value: unknown): string[] {
  const validate = validator(name)
  if (validate(value)) return []
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || '(root)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
  )
}

/**
 * The schema a run of the CLI printed against: its command's (`xpk cluster create ... --json` -> `cluster-create`)
 * when it exited 0, the error's when it printed `{"error": ...}`, and `vm-run-failure` when `vm run` failed on a
 * worker (the run beside the error). `-o json` is --json, and `-o yaml` the same value as YAML, held to the same
 * schemas. Undefined when no schema applies (no data asked for, or output that is not JSON or YAML).
 */
export function schemaForRun(
  args: readonly string[],
  code: number | null,
  stdout: string,
): {name: string; value: unknown} | undefined {
  const end = args.indexOf('--')
  const form = dataForm(end < 0 ? args : args.slice(0, end))
  if (form === undefined) return undefined
  let value: unknown
  try {
    value = form === 'json' ? JSON.parse(stdout) : load(stdout)
  } catch {
    return undefined
  }
  const words = args.filter((a) => !a.startsWith('-'))
  const command = [`${words[0]}-${words[1]}`, `${words[0]}`].find(hasSchema)
  if (code === 0) return command === undefined ? undefined : {name: command, value}
  if (value === null || typeof value !== 'object' || !('error' in value)) return undefined
  return {name: command === 'vm-run' && 'workers' in value ? 'vm-run-failure' : 'error', value}
}

/** The data a command line asks for: --json or -o json (`-o json`, `-ojson`, `-o=json`, `--output[=]json`), or -o yaml. */
function dataForm(args: readonly string[]): 'json' | 'yaml' | undefined {
  if (args.includes('--json')) return 'json'
  for (let i = 0; i < args.length; i++) {
    const given =
      /^(?:-o=?|--output=)(.+)$/.exec(args[i]!)?.[1] ?? (/^(-o|--output)$/.test(args[i]!) ? args[i + 1] : undefined)
    const form = given?.toLowerCase()
    if (form === 'json' || form === 'yaml') return form
  }
  return undefined
}
