// Lets Node 24 run the TypeScript sources directly (it strips types itself): relative imports are written with
// `.js` extensions, as TypeScript wants, so map them to the `.ts` file when no `.js` file exists.
// Usage: node --import ./bench/ts-resolve.mjs bench/image-build.ts
import {existsSync} from 'node:fs'
import {registerHooks} from 'node:module'
import {fileURLToPath} from 'node:url'

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.startsWith('file:')) {
      const js = new URL(specifier, context.parentURL)
      const ts = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL)
      if (!existsSync(fileURLToPath(js)) && existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context)
    }
    return nextResolve(specifier, context)
  },
})
