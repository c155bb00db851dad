/**
 * `-o yaml`: the command's result (or its error object) as YAML, the same value `--json` prints, written by the
 * emitter every manifest goes through. It is made from the value JSON.stringify reads (toJSON forms, no undefined),
 * so the two forms cannot differ in what they hold. Loaded only when YAML is printed.
 */
import {toYaml} from '../manifests/to-yaml.js'

export function renderYamlOutput(value: unknown): string {
  const json = JSON.stringify(value)
  return toYaml(json === undefined ? null : JSON.parse(json))
}
