/**
 * The error a call ends in, of the class a test expects; anything else (no error, or another kind of error) fails
 * the test there, with what happened instead.
 */
import {expect} from 'vitest'

type ErrorClass<E> = abstract new (...args: never[]) => E

/** The error `promise` rejects with, which must be an `Expected`. */
export async function rejection<E>(promise: Promise<unknown>, Expected: ErrorClass<E>): Promise<E> {
  const outcome = await promise.then(
    (value: unknown) => ({resolved: value}),
    (error: unknown) => error,
  )
  expect(outcome).toBeInstanceOf(Expected)
  return outcome as E
}

/** The error `call` throws, which must be an `Expected`. */
export function thrown<E>(call: () => unknown, Expected: ErrorClass<E>): E {
  let outcome: unknown
  try {
    outcome = {returned: call()}
  } catch (error) {
    outcome = error
  }
  expect(outcome).toBeInstanceOf(Expected)
  return outcome as E
}
