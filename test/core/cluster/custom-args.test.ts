import {describe, expect, it} from 'vitest'

import {
  CUSTOM_ARGUMENT_RANGES,
  mergeCustomFields,
  parseCustomNodePoolArguments,
  splitArguments,
} from '../../../src/core/cluster/custom-args.js'
import type {CustomNodePoolFields} from '../../../src/core/cluster/spec.js'
import {UsageError} from '../../../src/core/errors.js'
import {INTEGER_FLAGS} from '../../../src/core/input.js'

const FLAG = '--custom-nodepool-arguments'
const parse = (text: string | undefined) => parseCustomNodePoolArguments(text, FLAG)

function usageErrorOf(fn: () => unknown): UsageError {
  try {
    fn()
  } catch (error) {
    if (error instanceof UsageError) return error
    throw error
  }
  throw new Error('expected a UsageError, but nothing was thrown')
}

describe('splitArguments', () => {
  it.each([
    {case: 'empty', text: '', words: []},
    {case: 'only spaces', text: '   \t ', words: []},
    {case: 'plain words', text: '--a=1 --b 2', words: ['--a=1', '--b', '2']},
    {case: 'runs of whitespace', text: '  --a \t\n --b  ', words: ['--a', '--b']},
    {case: 'double quotes keep spaces', text: '--tags="a b" c', words: ['--tags=a b', 'c']},
    {case: 'single quotes keep spaces', text: "--x='one two'", words: ['--x=one two']},
    {case: 'the other quote is literal inside quotes', text: `"it's" 'say "hi"'`, words: ["it's", 'say "hi"']},
    {case: 'an empty quoted word is a word', text: `--a "" --b ''`, words: ['--a', '', '--b', '']},
    {case: 'quotes join adjacent text', text: 'a"b c"d', words: ['ab cd']},
    {case: 'no expansion', text: '$HOME ~ *', words: ['$HOME', '~', '*']},
  ])('$case', ({text, words}) => {
    expect(splitArguments(text, FLAG)).toEqual(words)
  })

  it.each([
    {case: 'double', text: '--node-labels="a=b', quote: '"'},
    {case: 'single', text: "--tags='x y", quote: "'"},
  ])('rejects an unbalanced $case quote, naming the flag', ({text, quote}) => {
    const error = usageErrorOf(() => splitArguments(text, FLAG))
    expect(error.flag).toBe(FLAG)
    expect(error.message).toBe(`${FLAG}: unbalanced ${quote} quote in "${text}".`)
  })
})

describe('parseCustomNodePoolArguments: supported flags', () => {
  it.each<{case: string; text: string; fields: CustomNodePoolFields}>([
    {case: 'node-labels', text: '--node-labels=team=ml,env=prod', fields: {labels: {team: 'ml', env: 'prod'}}},
    {case: 'node-labels, empty value', text: '--node-labels=flag=', fields: {labels: {flag: ''}}},
    {case: 'node-labels, = in the value', text: '--node-labels=a=b=c', fields: {labels: {a: 'b=c'}}},
    {
      case: 'node-taints',
      text: '--node-taints=dedicated=ml:NoSchedule,spot=true:PreferNoSchedule,gone=:NoExecute',
      fields: {
        taints: [
          {key: 'dedicated', value: 'ml', effect: 'NoSchedule'},
          {key: 'spot', value: 'true', effect: 'PreferNoSchedule'},
          {key: 'gone', value: '', effect: 'NoExecute'},
        ],
      },
    },
    {case: 'tags, empty items dropped', text: '--tags=web,,ssh', fields: {tags: ['web', 'ssh']}},
    {
      case: 'metadata',
      text: '--metadata=disable-legacy-endpoints=true',
      fields: {metadata: {'disable-legacy-endpoints': 'true'}},
    },
    {case: 'disk-type', text: '--disk-type=hyperdisk-balanced', fields: {diskType: 'hyperdisk-balanced'}},
    {case: 'disk-size in GB', text: '--disk-size=200', fields: {diskSizeGb: 200}},
    {case: 'disk-size with GB', text: '--disk-size=500GB', fields: {diskSizeGb: 500}},
    {case: 'disk-size with gb', text: '--disk-size=100gb', fields: {diskSizeGb: 100}},
    {case: 'image-type', text: '--image-type=COS_CONTAINERD', fields: {imageType: 'COS_CONTAINERD'}},
    {
      case: 'service-account',
      text: '--service-account=nodes@test-project.iam.gserviceaccount.com',
      fields: {serviceAccount: 'nodes@test-project.iam.gserviceaccount.com'},
    },
    {
      case: 'min-cpu-platform (quoted)',
      text: '--min-cpu-platform="Intel Sapphire Rapids"',
      fields: {minCpuPlatform: 'Intel Sapphire Rapids'},
    },
    {
      case: 'workload-metadata GKE',
      text: '--workload-metadata=GKE_METADATA',
      fields: {workloadMetadataMode: 'GKE_METADATA'},
    },
    {
      case: 'workload-metadata GCE',
      text: '--workload-metadata=GCE_METADATA',
      fields: {workloadMetadataMode: 'GCE_METADATA'},
    },
    {case: 'max-pods-per-node', text: '--max-pods-per-node=32', fields: {maxPodsPerNode: 32}},
    {case: 'enable-autoupgrade', text: '--enable-autoupgrade', fields: {autoUpgrade: true}},
    {case: 'no-enable-autoupgrade', text: '--no-enable-autoupgrade', fields: {autoUpgrade: false}},
    {case: 'enable-autorepair', text: '--enable-autorepair', fields: {autoRepair: true}},
    {case: 'no-enable-autorepair', text: '--no-enable-autorepair', fields: {autoRepair: false}},
    {case: 'enable-gvnic', text: '--enable-gvnic', fields: {gvnic: true}},
    {case: 'no-enable-gvnic', text: '--no-enable-gvnic', fields: {gvnic: false}},
  ])('--$case', ({text, fields}) => {
    expect(parse(text)).toEqual(fields)
  })

  it.each([
    {case: '--flag=value', text: '--disk-type=pd-ssd --node-labels=a=1'},
    {case: '--flag value', text: '--disk-type pd-ssd --node-labels a=1'},
    {case: 'mixed, with extra whitespace', text: '  --disk-type   pd-ssd\t--node-labels=a=1 '},
  ])('accepts the $case form', ({text}) => {
    expect(parse(text)).toEqual({diskType: 'pd-ssd', labels: {a: '1'}})
  })

  it.each([undefined, '', '   '])('returns no fields for %j', (text) => {
    expect(parse(text)).toEqual({})
  })

  it('accumulates repeated list flags and lets a later scalar or boolean win', () => {
    expect(
      parse(
        '--node-labels=a=1,b=2 --node-labels=b=3 --tags=x --tags=y --node-taints=k=v:NoSchedule ' +
          '--node-taints=k2=v2:NoExecute --disk-size=100 --disk-size=200 --enable-gvnic --no-enable-gvnic',
      ),
    ).toEqual({
      labels: {a: '1', b: '3'},
      tags: ['x', 'y'],
      taints: [
        {key: 'k', value: 'v', effect: 'NoSchedule'},
        {key: 'k2', value: 'v2', effect: 'NoExecute'},
      ],
      diskSizeGb: 200,
      gvnic: false,
    })
  })
})

describe('parseCustomNodePoolArguments: rejected input', () => {
  it.each([
    {name: 'spot', replacement: 'use the capacity flag --spot'},
    {name: 'preemptible', replacement: 'use the capacity flag --spot'},
    {name: 'flex-start', replacement: 'use the capacity flag --flex'},
    {name: 'reservation', replacement: 'use the capacity flag --reservation NAME'},
    {name: 'reservation-affinity', replacement: 'use the capacity flag --reservation NAME (or --on-demand)'},
    {
      name: 'num-nodes',
      replacement: 'the node count follows the accelerator type (GPU: --num-nodes of cluster create)',
    },
    {name: 'machine-type', replacement: 'the machine type follows --tpu-type / --device-type'},
    {name: 'node-locations', replacement: 'nodes run in --zone'},
    {
      name: 'node-version',
      replacement: 'xpk picks the node version from the control plane (pin it with --gke-version)',
    },
    {name: 'placement-type', replacement: 'xpk sets compact placement for multi-host TPU slices'},
    {name: 'tpu-topology', replacement: 'the topology follows --tpu-type'},
    {name: 'placement-policy', replacement: 'xpk sets the workload placement policy for types that need one'},
    {name: 'accelerator', replacement: 'GPU type and count follow --device-type'},
    {name: 'scopes', replacement: 'xpk sets the node scopes (cloud-platform included)'},
  ])('--$name is owned by xpk: suggests "$replacement"', ({name, replacement}) => {
    for (const text of [`--${name}=x`, `--${name} x`, `--${name}`]) {
      const error = usageErrorOf(() => parse(`--disk-type=pd-ssd ${text}`))
      expect(error.flag).toBe(FLAG)
      expect(error.message).toBe(`${FLAG}: --${name}: xpk sets this itself; ${replacement}.`)
    }
  })

  it('rejects an unknown flag, listing the supported ones and the closest', () => {
    const error = usageErrorOf(() => parse('--node-label=a=b'))
    expect(error.flag).toBe(FLAG)
    expect(error.message).toBe(`${FLAG}: --node-label cannot be mapped to the GKE API by xpk.`)
    expect(error.hints).toEqual([
      'Supported: --node-labels, --node-taints, --tags, --metadata, --disk-type, --disk-size, --image-type, ' +
        '--service-account, --min-cpu-platform, --workload-metadata, --max-pods-per-node, --enable-autoupgrade, ' +
        '--no-enable-autoupgrade, --enable-autorepair, --no-enable-autorepair, --enable-gvnic, --no-enable-gvnic.',
      expect.stringMatching(/^Closest: --node-labels, /),
    ])
  })

  it('names the flag the text came from', () => {
    const error = usageErrorOf(() => parseCustomNodePoolArguments('--bogus', '--custom-tpu-nodepool-arguments'))
    expect(error.flag).toBe('--custom-tpu-nodepool-arguments')
    expect(error.message).toMatch(/^--custom-tpu-nodepool-arguments: --bogus cannot be mapped/)
  })

  it.each([
    {case: 'a bare word', text: 'pd-ssd', message: `${FLAG}: expected --name=value flags, found "pd-ssd".`},
    {case: 'a single-dash flag', text: '-q', message: `${FLAG}: expected --name=value flags, found "-q".`},
    {case: 'an extra word after a boolean', text: '--enable-gvnic true', message: /found "true"/},
    {case: 'a value flag at the end', text: '--disk-type', message: `${FLAG}: --disk-type: needs a value.`},
    {
      case: 'a value flag followed by a flag',
      text: '--disk-type --enable-gvnic',
      message: /--disk-type: needs a value/,
    },
    {case: 'an empty =value', text: '--image-type=', message: `${FLAG}: --image-type: needs a value.`},
    {case: 'an empty quoted value', text: '--image-type ""', message: /--image-type: needs a value/},
    {
      case: 'a value on a boolean',
      text: '--enable-autorepair=true',
      message: `${FLAG}: --enable-autorepair: takes no value.`,
    },
    {case: 'a label without =', text: '--node-labels=a=1,b', message: `${FLAG}: --node-labels: "b" is not KEY=VALUE.`},
    {case: 'a label with an empty key', text: '--node-labels==x', message: /"=x" is not KEY=VALUE/},
    {case: 'metadata without =', text: '--metadata=k', message: /--metadata: "k" is not KEY=VALUE/},
    {
      case: 'a taint without effect',
      text: '--node-taints=k=v',
      message: /--node-taints: "k=v" is not KEY=VALUE:EFFECT/,
    },
    {
      case: 'a taint without value',
      text: '--node-taints=k:NoSchedule',
      message: /"k:NoSchedule" is not KEY=VALUE:EFFECT/,
    },
    {
      case: 'a taint with an unknown effect',
      text: '--node-taints=k=v:NoRun',
      message: /"k=v:NoRun" is not KEY=VALUE:EFFECT/,
    },
    {case: 'a taint effect in the wrong case', text: '--node-taints=k=v:noschedule', message: /EFFECT: NoSchedule/},
    {
      case: 'a disk size in TB',
      text: '--disk-size=1TB',
      message: `${FLAG}: --disk-size: "1TB" is not a size in GB, e.g. 200 or 200GB.`,
    },
    {case: 'a fractional disk size', text: '--disk-size=1.5', message: /"1\.5" is not a size in GB/},
    {
      case: 'zero max pods',
      text: '--max-pods-per-node=0',
      message: `${FLAG}: --max-pods-per-node: 0 is out of range: use a whole number from 8 to 256 (GKE's maxPodsPerNode).`,
    },
    {case: 'non-numeric max pods', text: '--max-pods-per-node=many', message: /"many" is not a whole number/},
    {case: 'negative max pods', text: '--max-pods-per-node=-8', message: /-8 is out of range/},
    {
      case: 'bad workload metadata',
      text: '--workload-metadata=GKE',
      message: `${FLAG}: --workload-metadata: use GKE_METADATA or GCE_METADATA.`,
    },
    {case: 'an unbalanced quote', text: '--tags="a', message: /unbalanced " quote/},
  ])('rejects $case', ({text, message}) => {
    const error = usageErrorOf(() => parse(text))
    expect(error.flag).toBe(FLAG)
    expect(error.message).toMatch(message)
    expect(error.exitCode).toBe(2)
  })

  // Bug: HANDLERS, OWNED_BY_XPK and TAINT_EFFECTS are plain objects looked up with `obj[name]`, so names inherited
  // from Object.prototype (constructor, toString, valueOf, hasOwnProperty, __proto__) are found too.
  it.each(['constructor', 'toString', '__proto__'])(
    'rejects --%s as an unknown flag (not as an xpk-owned one via Object.prototype)',
    (name) => {
      const error = usageErrorOf(() => parse(`--${name}=x`))
      expect(error.message).toBe(`${FLAG}: --${name} cannot be mapped to the GKE API by xpk.`)
    },
  )

  it.each(['toString', 'valueOf'])(
    'rejects the taint effect %s (an Object.prototype name, not NoSchedule/PreferNoSchedule/NoExecute)',
    (effect) => {
      const error = usageErrorOf(() => parse(`--node-taints=k=v:${effect}`))
      expect(error.message).toMatch(/is not KEY=VALUE:EFFECT/)
    },
  )
})

describe('mergeCustomFields', () => {
  it('returns an empty object for two empty ones', () => {
    expect(mergeCustomFields({}, {})).toEqual({})
  })

  it('lets the second win for scalars and booleans, and keeps fields only one side sets', () => {
    expect(
      mergeCustomFields(
        {diskType: 'pd-ssd', diskSizeGb: 100, gvnic: true, imageType: 'COS_CONTAINERD'},
        {diskSizeGb: 500, gvnic: false, serviceAccount: 'sa@p.iam.gserviceaccount.com'},
      ),
    ).toEqual({
      diskType: 'pd-ssd',
      diskSizeGb: 500,
      gvnic: false,
      imageType: 'COS_CONTAINERD',
      serviceAccount: 'sa@p.iam.gserviceaccount.com',
    })
  })

  it('merges labels and metadata key by key (second wins) and concatenates taints and tags', () => {
    const a: CustomNodePoolFields = {
      labels: {team: 'ml', tier: 'a'},
      metadata: {x: '1'},
      taints: [{key: 'a', value: '1', effect: 'NoSchedule'}],
      tags: ['web'],
    }
    const b: CustomNodePoolFields = {
      labels: {tier: 'b'},
      metadata: {y: '2'},
      taints: [{key: 'b', value: '2', effect: 'NoExecute'}],
      tags: ['ssh'],
    }
    expect(mergeCustomFields(a, b)).toEqual({
      labels: {team: 'ml', tier: 'b'},
      metadata: {x: '1', y: '2'},
      taints: [
        {key: 'a', value: '1', effect: 'NoSchedule'},
        {key: 'b', value: '2', effect: 'NoExecute'},
      ],
      tags: ['web', 'ssh'],
    })
  })

  it.each<{case: string; a: CustomNodePoolFields; b: CustomNodePoolFields}>([
    {case: 'only the first', a: {labels: {a: '1'}, tags: ['t']}, b: {}},
    {case: 'only the second', a: {}, b: {labels: {a: '1'}, tags: ['t']}},
  ])('keeps collections set by $case', ({a, b}) => {
    expect(mergeCustomFields(a, b)).toEqual({labels: {a: '1'}, tags: ['t']})
  })

  it('does not mutate its inputs', () => {
    const a: CustomNodePoolFields = {labels: {a: '1'}, tags: ['x']}
    const b: CustomNodePoolFields = {labels: {b: '2'}, tags: ['y']}
    mergeCustomFields(a, b)
    expect(a).toEqual({labels: {a: '1'}, tags: ['x']})
    expect(b).toEqual({labels: {b: '2'}, tags: ['y']})
  })
})

// Issue 17: a numeric node-pool argument holds the same range as the xpk flag for the same field (one table), so GKE
// never sees a value the flag would have refused.
describe('numeric custom arguments keep the ranges of CUSTOM_ARGUMENT_RANGES', () => {
  const names = Object.keys(CUSTOM_ARGUMENT_RANGES) as (keyof typeof CUSTOM_ARGUMENT_RANGES)[]
  const field = {'max-pods-per-node': 'maxPodsPerNode', 'disk-size': 'diskSizeGb'} as const

  it('ties --max-pods-per-node to the flag of the same name', () => {
    expect(CUSTOM_ARGUMENT_RANGES['max-pods-per-node']).toBe(INTEGER_FLAGS['cluster:max-pods-per-node'])
  })

  const refused = names.flatMap((name) => {
    const {min, max} = CUSTOM_ARGUMENT_RANGES[name]
    return [String(min - 1), String(max + 1), '9999999999999999999999'].map((value) => ({name, value}))
  })
  it.each(refused)('--$name=$value is refused with the range', ({name, value}) => {
    const {min, max} = CUSTOM_ARGUMENT_RANGES[name]
    const error = usageErrorOf(() => parse(`--${name}=${value}`))
    expect(error.flag).toBe(FLAG)
    expect(error.message).toContain(`a whole number from ${min} to ${max}`)
  })

  const accepted = names.flatMap((name) => {
    const {min, max} = CUSTOM_ARGUMENT_RANGES[name]
    return [min, max].map((value) => ({name, value}))
  })
  it.each(accepted)('--$name=$value is accepted', ({name, value}) => {
    expect(parse(`--${name}=${value}`)).toEqual({[field[name]]: value})
  })
})
