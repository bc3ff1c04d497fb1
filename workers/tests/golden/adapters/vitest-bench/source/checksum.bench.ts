// latlab's Vitest bench golden-file benchmark (workers/tests/golden/adapters/vitest-bench/README.md):
// two benches of different cost in one describe, and one at the top level.
import { bench, describe } from 'vitest'

function checksum(text: string): number {
  let sum = 2166136261
  for (let i = 0; i < text.length; i++) {
    sum = Math.imul(sum ^ text.charCodeAt(i), 16777619) >>> 0
  }
  return sum
}

const small = 'x'.repeat(10)
const large = 'x'.repeat(1000)

describe('checksum', () => {
  bench('10 chars', () => {
    checksum(small)
  })
  bench('1000 chars', () => {
    checksum(large)
  })
})

bench('json round trip', () => {
  JSON.parse(JSON.stringify({ text: small, n: 1 }))
})
