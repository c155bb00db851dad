/**
 * The apply half of `xpk workload create`: the plan's steps (src/core/workload/create-plan.ts) as steps of the one
 * step graph (src/executor/step-graph.ts), run in this order: the image is built and pushed; with --replace, the
 * JobSet that was read is deleted and waited for until it and its Jobs are gone; the RBAC objects that are missing or
 * differ are applied, the ServiceAccount (whose revision says the others are in place) last; the JobSet is created.
 * A step that fails skips what needs it, so a failed build deletes and sends nothing.
 */
import {ApiError, XpkError} from '../core/errors.js'
import {XPK_NAMESPACE} from '../core/incluster/namespace.js'
import type {InClusterObject} from '../core/incluster/types.js'
import {applyWouldChange} from '../core/incluster/live-diff.js'
import type {JobSet} from '../core/manifests/k8s-types.js'
import {workloadRbacApplied, workloadReplacing} from '../core/messages/workload.js'
import {
  rbacChanges,
  workloadJobSet,
  type RbacChange,
  type RbacStep,
  type WorkloadPlanStep,
} from '../core/workload/create-plan.js'
import {jobSetRef} from '../core/workload/jobsets.js'
import type {WorkloadInput} from '../core/workload/options.js'
import {withRetries, type RetryOptions} from '../executor/retry.js'
import {planStep, runStepsOrThrow, type GraphStep} from '../executor/step-graph.js'
import type {KubeClient, KubeObject} from '../ports/kube.js'
import {awaitGone, type WorkloadTiming} from './workload-delete.js'
import type {PlannedSubmit} from './workload-create-plan.js'
import type {WorkloadCreateDeps, WorkloadImage} from './workload-create.js'

/** What the apply did. */
export interface AppliedSubmit {
  /** The image as run: pushed now, or as planned. */
  readonly image: WorkloadImage
  /** The JobSet as created (its image by digest when it was pushed now). */
  readonly manifest: JobSet
  readonly replaced: boolean
  readonly rbac: RbacChange[]
}

/**
 * Applies the plan of a submit. `writeManifest` writes --output-manifest-file with the JobSet as it will be created,
 * before it is.
 * @throws the first step's failure (the JobSet's name taken by another submit meanwhile: exit 6), or Ctrl-C's
 */
export async function applySubmit(
  planned: PlannedSubmit,
  writeManifest: (manifest: JobSet) => Promise<void>,
  timing: WorkloadTiming,
  deps: WorkloadCreateDeps,
): Promise<AppliedSubmit> {
  const {plan} = planned
  const kube = planned.reached!.kube
  const input = planned.inputs.input
  const retry: RetryOptions = {policy: timing.retry, clock: deps, signal: deps.signal}
  let image = planned.image
  let manifest = plan.steps.find((s) => s.resource === 'jobSet' && s.action === 'create')!.spec as JobSet
  let replaced = false

  const graph: GraphStep[] = []
  const add = (step: WorkloadPlanStep, id: string, needs: readonly string[], run: () => Promise<void>): string => {
    graph.push(planStep(step, id, run, needs, graph))
    return id
  }
  const imageStep = plan.steps.find((s) => s.resource === 'image' && s.action === 'build')
  if (imageStep && planned.buildImage) {
    const build = planned.buildImage
    add(imageStep, 'image', [], async () => {
      image = {source: 'built', ...(await build())}
      manifest = workloadJobSet(planned.inputs, image.reference)
    })
  }
  for (const step of plan.steps) {
    if (step.resource === 'jobSet' && step.action === 'delete') {
      add(step, 'delete', ['image'], async () => {
        deps.console.info(workloadReplacing({namespace: XPK_NAMESPACE, workload: input.name}))
        await deleteReplaced(kube, input, step.spec.uid, retry)
      })
    } else if (step.resource === 'jobSet' && step.action === 'wait') {
      add(step, 'wait', ['delete'], async () => {
        await awaitGone(kube, [input.name], 'jobs', timing, deps)
        replaced = true
      })
    }
  }
  // The ServiceAccount last: its revision says the Role and RoleBindings are in place.
  const rbac = plan.steps.filter((s): s is RbacStep => isRbac(s) && s.spec !== null && s.action !== 'none')
  const send = (object: InClusterObject) =>
    withRetries(() => kube.apply(object as unknown as KubeObject, {force: true}), retry)
  const others = rbac
    .filter((s) => s.resource !== 'serviceAccount')
    .map((s) => add(s, `rbac:${s.resource}:${s.name}`, ['image', 'wait'], () => send(s.spec as InClusterObject).then()))
  const changed = rbacChanges(plan).filter((r) => r.change !== 'none')
  for (const s of rbac.filter((r) => r.resource === 'serviceAccount')) {
    add(s, `rbac:${s.resource}:${s.name}`, ['image', 'wait', ...others], async () => {
      await send(s.spec as InClusterObject)
      // The objects are xpk's by name (Python xpk wrote the same ones with kubectl): taken over where they differ.
      deps.console.info(workloadRbacApplied({namespace: XPK_NAMESPACE, changed}))
    })
  }
  const create = plan.steps.find((s) => s.resource === 'jobSet' && s.action === 'create')!
  add(create, 'create', ['image', 'wait', ...rbac.map((s) => `rbac:${s.resource}:${s.name}`)], async () => {
    await writeManifest(manifest)
    await createJobSet(kube, input, manifest, planned.replaces?.uid, retry, planned.explainCreateFailure)
  })

  await runStepsOrThrow(graph, {board: undefined, signal: deps.signal, now: deps.now})
  return {image, manifest, replaced, rbac: rbacChanges(plan)}
}

function isRbac(step: WorkloadPlanStep): step is RbacStep {
  return step.resource === 'serviceAccount' || step.resource === 'role' || step.resource === 'roleBinding'
}

/** Deletes the JobSet that was read, and only that one: its uid is the delete's precondition. */
async function deleteReplaced(kube: KubeClient, input: WorkloadInput, uid: string, retry: RetryOptions): Promise<void> {
  try {
    await withRetries(() => kube.delete(jobSetRef(input.name), {uid}), retry)
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 'CONFLICT')) throw error
    throw nameTaken(input, 'was replaced by another submit after it was read, so it was not deleted', error)
  }
}

/**
 * Creates the JobSet: create-if-absent, so when another submit took the name since it was read, the API server
 * answers 409 AlreadyExists and this one is refused (exit 6), where an apply would have silently replaced the other's
 * workload.
 */
async function createJobSet(
  kube: KubeClient,
  input: WorkloadInput,
  manifest: JobSet,
  replacedUid: string | undefined,
  retry: RetryOptions,
  explainFailure: PlannedSubmit['explainCreateFailure'],
): Promise<void> {
  const created = {...manifest, metadata: {...manifest.metadata, namespace: XPK_NAMESPACE}} as unknown as KubeObject
  let attempts = 0
  try {
    await withRetries(() => (attempts++, kube.create(created)), retry)
  } catch (error) {
    // The name was not read before (the create is the check): a refusal says what the read would have said.
    const explained = async () => (explainFailure === null ? undefined : await explainFailure(error))
    if (!(error instanceof ApiError && error.status === 'ALREADY_EXISTS')) throw (await explained()) ?? error
    // After a failed attempt whose answer was lost, the JobSet there may be this very submit's: it is when it holds
    // exactly what was sent (and is not the one --replace deleted).
    const mine =
      attempts > 1 &&
      (await withRetries(() => kube.get(jobSetRef(input.name)), retry).then(
        (found) =>
          found !== undefined &&
          found.metadata.uid !== replacedUid &&
          !applyWouldChange(created as unknown as InClusterObject, found),
      ))
    if (!mine) {
      throw (
        (await explained()) ?? nameTaken(input, 'was created by another submit after the name was read as free', error)
      )
    }
  }
}

/** The refusal of a name another submit took between the read and the create: exit 6, as for a name taken before. */
function nameTaken(input: WorkloadInput, what: string, cause: unknown): XpkError {
  return new XpkError(
    'conflict',
    `Workload ${input.name} already exists on cluster ${input.cluster}: JobSet ${XPK_NAMESPACE}/${input.name} ${what}. Nothing of it was changed.`,
    {
      hints: [
        `Someone else submitted a workload of this name at the same time: pick another --workload name, or look at theirs ` +
          `(\`xpk workload list --cluster ${input.cluster} --filter-by-job ${input.name}\`) and add --replace to delete it and submit this one.`,
        `\`xpk workload delete --cluster ${input.cluster} --workload ${input.name}\` deletes it.`,
      ],
      cause,
    },
  )
}
