// JSON Schemas of what `--json` prints, derived from the TypeScript types with the compiler API (no generator
// package): each command's schema is the awaited return type of its run() method, as listed in COMMANDS
// (src/index.ts), so a command added there is covered without a line here.
import {readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import ts from 'typescript'

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url))

export type JsonSchema = Record<string, unknown>

/** The file name (without .json) of a command's schema: `cluster:create` -> `cluster-create`. */
export function schemaName(commandId: string): string {
  return commandId.replaceAll(':', '-')
}

/** The schema of the `{"error": ...}` object every command prints under --json when it fails. */
export const ERROR_SCHEMA = 'error'
/** The schema of `vm run --json` when the command failed on a worker: the run with the error beside it. */
export const WORKER_FAILURE_SCHEMA = 'vm-run-failure'

/**
 * Every schema, by file name: one per command of COMMANDS, plus {@link ERROR_SCHEMA} and
 * {@link WORKER_FAILURE_SCHEMA}. Throws when a type cannot be said in JSON (a function, a Map, a bigint): such a
 * value would be dropped or garbled by JSON.stringify, so the type is wrong for a result.
 */
export function generateSchemas(): Record<string, JsonSchema> {
  const program = createProgram(['src/index.ts', 'src/core/errors.ts'])
  const checker = program.getTypeChecker()
  const index = sourceFile(program, 'src/index.ts')
  const commands = exportedSymbol(checker, index, 'COMMANDS')
  const out: Record<string, JsonSchema> = {}
  for (const command of checker.getPropertiesOfType(checker.getTypeOfSymbol(commands))) {
    const id = command.getName()
    const ctor = checker.getTypeOfSymbol(command)
    const [construct] = ctor.getConstructSignatures()
    if (!construct) throw new Error(`COMMANDS['${id}'] is not a class`)
    const run = construct.getReturnType().getProperty('run')
    if (!run) throw new Error(`COMMANDS['${id}'] has no run()`)
    const [call] = checker.getTypeOfSymbol(run).getCallSignatures()
    const result = checker.getAwaitedType(call!.getReturnType()) ?? call!.getReturnType()
    out[schemaName(id)] = new SchemaWriter(checker, `xpk ${id.replaceAll(':', ' ')} --json`).document(result)
  }
  const errors = sourceFile(program, 'src/core/errors.ts')
  const errorJson = checker.getDeclaredTypeOfSymbol(exportedSymbol(checker, errors, 'ErrorJson'))
  out[ERROR_SCHEMA] = new SchemaWriter(checker, 'xpk ... --json, when the command fails').document(errorJson)
  out[WORKER_FAILURE_SCHEMA] = workerFailure(out[schemaName('vm:run')]!, out[ERROR_SCHEMA])
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)))
}

/**
 * `vm run --json` after a worker failed prints the run's result and the error side by side in one object
 * (src/cli/vm-context.ts workerFailureJson): the run's schema with the error's `error` property added.
 */
function workerFailure(run: JsonSchema, error: JsonSchema): JsonSchema {
  const definitions = {...(run.definitions as object), ...(error.definitions as object)} as Record<string, JsonSchema>
  const resolve = (s: JsonSchema): JsonSchema =>
    typeof s.$ref === 'string' ? definitions[s.$ref.replace('#/definitions/', '')]! : s
  const runObject = resolve(run)
  const errorObject = resolve(error)
  if (runObject.type !== 'object' || errorObject.type !== 'object') throw new Error('vm run: expected object results')
  return withDefinitions(
    {
      $schema: run.$schema,
      title: 'xpk vm run --json, when the command failed on a worker',
      type: 'object',
      properties: {...(runObject.properties as object), ...(errorObject.properties as object)},
      required: [...(runObject.required as string[]), ...(errorObject.required as string[])],
      additionalProperties: false,
    },
    definitions,
  )
}

/** The document with the definitions it refers to (directly or through others), sorted by name. */
function withDefinitions(document: JsonSchema, definitions: Record<string, JsonSchema>): JsonSchema {
  const used = new Set<string>()
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit)
    if (node === null || typeof node !== 'object') return
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') {
        const name = value.replace('#/definitions/', '')
        if (!used.has(name)) {
          used.add(name)
          visit(definitions[name])
        }
      } else visit(value)
    }
  }
  visit(document)
  if (used.size === 0) return document
  return {...document, definitions: Object.fromEntries([...used].sort().map((name) => [name, definitions[name]]))}
}

function createProgram(roots: readonly string[]): ts.Program {
  const configPath = join(REPO_ROOT, 'tsconfig.json')
  const config = ts.parseJsonConfigFileContent(
    ts.parseConfigFileTextToJson(configPath, readFileSync(configPath, 'utf8')).config,
    ts.sys,
    dirname(configPath),
  )
  return ts.createProgram(
    roots.map((r) => join(REPO_ROOT, r)),
    config.options,
  )
}

function sourceFile(program: ts.Program, path: string): ts.SourceFile {
  const file = program.getSourceFile(join(REPO_ROOT, path))
  if (!file) throw new Error(`${path} is not in the program`)
  return file
}

function exportedSymbol(checker: ts.TypeChecker, file: ts.SourceFile, name: string): ts.Symbol {
  const moduleSymbol = checker.getSymbolAtLocation(file)
  const symbol = moduleSymbol && checker.getExportsOfModule(moduleSymbol).find((s) => s.getName() === name)
  if (!symbol) throw new Error(`${file.fileName} does not export ${name}`)
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
}

/**
 * Writes one schema document. Named object types (interfaces, type aliases, classes) become `definitions`, so the
 * schema reads like the source and a recursive type ends; anonymous ones are written in place. Objects are closed
 * (`additionalProperties: false`) unless their type has an index signature: a field the type does not declare fails
 * validation, so the schema and the output cannot drift apart unseen.
 */
class SchemaWriter {
  private readonly definitions = new Map<string, JsonSchema>()
  private readonly names = new Map<ts.Type, string>()
  private readonly path: string[] = []
  private readonly checker: ts.TypeChecker
  private readonly title: string

  constructor(checker: ts.TypeChecker, title: string) {
    this.checker = checker
    this.title = title
  }

  document(type: ts.Type): JsonSchema {
    const root = this.schema(type)
    return withDefinitions(
      {$schema: 'http://json-schema.org/draft-07/schema#', title: this.title, ...root},
      Object.fromEntries(this.definitions),
    )
  }

  private fail(type: ts.Type, why: string): never {
    const at = this.path.length > 0 ? this.path.join('.') : '(root)'
    throw new Error(`${this.title}: ${at}: ${this.checker.typeToString(type)} ${why}`)
  }

  private schema(type: ts.Type): JsonSchema {
    const {checker} = this
    const flags = type.flags
    if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return {}
    if (flags & ts.TypeFlags.Never) return {not: {}}
    if (flags & ts.TypeFlags.Null) return {type: 'null'}
    if (flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) this.fail(type, 'is not JSON (undefined)')
    if (flags & ts.TypeFlags.BooleanLiteral) return {type: 'boolean', const: type === checker.getTrueType()}
    if (flags & ts.TypeFlags.Boolean) return {type: 'boolean'}
    if (type.isStringLiteral()) return {type: 'string', const: type.value}
    if (type.isNumberLiteral()) return {type: 'number', const: type.value}
    if (flags & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) {
      return {type: 'string'}
    }
    if (flags & ts.TypeFlags.Number) return {type: 'number'}
    if (flags & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) this.fail(type, 'is not JSON (bigint)')
    if (flags & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)) this.fail(type, 'is not JSON (symbol)')
    if (type.isUnion()) return this.union(type.types)
    if (type.isIntersection()) {
      // A branded primitive (`string & {readonly brand: ...}`) is the primitive in JSON.
      const primitive = type.types.find(
        (t) => t.flags & (ts.TypeFlags.StringLike | ts.TypeFlags.NumberLike | ts.TypeFlags.BooleanLike),
      )
      if (primitive) return this.schema(primitive)
    }
    if (flags & ts.TypeFlags.Object || type.isIntersection()) return this.object(type)
    if (flags & ts.TypeFlags.NonPrimitive) return {type: 'object'}
    return this.fail(type, 'has no JSON schema here')
  }

  private union(members: readonly ts.Type[]): JsonSchema {
    const defined = members.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)))
    const booleans = defined.filter((t) => t.flags & ts.TypeFlags.BooleanLiteral)
    const rest = defined.filter((t) => !(t.flags & ts.TypeFlags.BooleanLiteral))
    const schemas = [...(booleans.length === 2 ? [{type: 'boolean'}] : booleans.map((t) => this.schema(t)))]
    schemas.push(...rest.map((t) => this.schema(t)))
    // null last, as the source writes it (`string | null`); the compiler orders union members its own way.
    schemas.sort((a, b) => Number(a.type === 'null') - Number(b.type === 'null'))
    if (schemas.length === 1) return schemas[0]!
    const nullable = schemas.at(-1)!.type === 'null' ? [schemas.pop()!] : []
    // All literals of one primitive type: an enum reads better than a list of consts.
    const literalTypes = new Set(schemas.map((s) => ('const' in s && Object.keys(s).length === 2 ? s.type : '')))
    if (literalTypes.size === 1 && !literalTypes.has('')) {
      // Sorted: the compiler orders union members by when it met each type, which moves with the order files load.
      const values = schemas.map((s) => s.const).sort()
      const type = [...literalTypes][0]
      return nullable.length > 0 ? {type: [type, 'null'], enum: [...values, null]} : {type, enum: values}
    }
    // The same for the members of any other union (their order means nothing to a validator).
    schemas.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))
    schemas.push(...nullable)
    // Plain types only (`string | null`): one type list.
    if (schemas.every((s) => Object.keys(s).length === 1 && typeof s.type === 'string')) {
      return {type: schemas.map((s) => s.type)}
    }
    return {anyOf: schemas}
  }

  private object(type: ts.Type): JsonSchema {
    const {checker} = this
    const toJson = type.getProperty('toJSON')
    if (toJson) {
      const [call] = checker.getTypeOfSymbol(toJson).getCallSignatures()
      if (call) return this.schema(call.getReturnType())
    }
    if (checker.isTupleType(type)) {
      const items = checker.getTypeArguments(type as ts.TypeReference).map((t) => this.schema(t))
      return {type: 'array', items, minItems: items.length, maxItems: items.length}
    }
    if (checker.isArrayType(type)) {
      const [element] = checker.getTypeArguments(type as ts.TypeReference)
      return {type: 'array', items: this.schema(element!)}
    }
    if (type.getCallSignatures().length > 0) this.fail(type, 'is not JSON (a function)')
    const symbolName = (type.aliasSymbol ?? type.getSymbol())?.getName()
    if (symbolName === 'Map' || symbolName === 'Set' || symbolName === 'Promise') {
      this.fail(type, `is not JSON (a ${symbolName})`)
    }
    const name = this.definitionName(type)
    if (name === undefined) return this.objectBody(type)
    if (!this.definitions.has(name)) {
      this.definitions.set(name, {})
      this.definitions.set(name, this.objectBody(type))
    }
    return {$ref: `#/definitions/${name}`}
  }

  /** The definition a named object type is written to, or undefined for an anonymous one (written in place). */
  private definitionName(type: ts.Type): string | undefined {
    const known = this.names.get(type)
    if (known) return known
    // The project's (and its libraries') own names; TypeScript's utility types (Readonly, Record, Omit) and
    // anonymous object types are written in place.
    const symbol = [type.aliasSymbol, type.getSymbol()].find(
      (s) => s && !s.getName().startsWith('__') && !s.declarations?.some((d) => isDefaultLib(d.getSourceFile())),
    )
    if (!symbol) return undefined
    const text = this.checker.typeToString(type, undefined, ts.TypeFormatFlags.NoTruncation)
    const base = /^[A-Za-z_$][\w$]*$/.test(text) ? text : text.replace(/[^\w$]+/g, '_').replace(/_+$/, '')
    let name = base
    for (let n = 2; [...this.names.values()].includes(name); n++) name = `${base}_${n}`
    this.names.set(type, name)
    return name
  }

  private objectBody(type: ts.Type): JsonSchema {
    const {checker} = this
    const properties: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const property of checker.getPropertiesOfType(type)) {
      const name = property.getName()
      const declaration = property.valueDeclaration ?? property.declarations?.[0]
      const propertyType = declaration
        ? checker.getTypeOfSymbolAtLocation(property, declaration)
        : checker.getTypeOfSymbol(property)
      // Methods and function-valued fields are not in the JSON (JSON.stringify drops them), nor are getters (they
      // live on the prototype) or an Error's own message, stack and cause (not enumerable).
      if (property.flags & (ts.SymbolFlags.Method | ts.SymbolFlags.GetAccessor) || isFunctionOnly(propertyType))
        continue
      if (isHiddenErrorField(property)) continue
      const onlyUndefined =
        propertyType.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void) ||
        (propertyType.isUnion() && propertyType.types.every((t) => t.flags & ts.TypeFlags.Undefined))
      if (onlyUndefined) continue
      const mayBeAbsent =
        property.flags & ts.SymbolFlags.Optional ||
        (propertyType.isUnion() && propertyType.types.some((t) => t.flags & ts.TypeFlags.Undefined))
      this.path.push(name)
      properties[name] = this.schema(propertyType)
      this.path.pop()
      if (!mayBeAbsent) required.push(name)
    }
    const [stringIndex] = checker.getIndexInfosOfType(type).filter((i) => i.keyType.flags & ts.TypeFlags.String)
    this.path.push('[key]')
    const additional = stringIndex ? this.schema(stringIndex.type) : false
    this.path.pop()
    return {
      type: 'object',
      ...(Object.keys(properties).length > 0 ? {properties} : {}),
      ...(required.length > 0 ? {required} : {}),
      additionalProperties: additional,
    }
  }
}

function isDefaultLib(file: ts.SourceFile): boolean {
  return /[\\/]typescript[\\/]lib[\\/]lib\.[^\\/]*\.d\.ts$/.test(file.fileName)
}

function isHiddenErrorField(property: ts.Symbol): boolean {
  const declarations = property.declarations ?? []
  return (
    ['message', 'stack', 'cause'].includes(property.getName()) &&
    declarations.length > 0 &&
    declarations.every((d) => ts.isInterfaceDeclaration(d.parent) && d.parent.name.text === 'Error')
  )
}

function isFunctionOnly(type: ts.Type): boolean {
  const parts = type.isUnion() ? type.types : [type]
  const defined = parts.filter((t) => !(t.flags & ts.TypeFlags.Undefined))
  return defined.length > 0 && defined.every((t) => t.getCallSignatures().length > 0 && t.getProperties().length === 0)
}
