// A bench that throws beside one that runs (the failure case of the golden README).
import { bench, describe } from 'vitest'

describe('needs input', () => {
  bench('reads nothing', () => {
    JSON.parse('{"n": 1}')
  })
  bench('reads a missing file', () => {
    throw new Error('no input file')
  })
})
