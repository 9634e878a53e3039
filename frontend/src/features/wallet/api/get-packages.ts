import { queryOptions, useQuery } from '@tanstack/react-query'

import { supabase } from '@/lib/supabase'

import { walletKeys } from './keys'

export type NestcoinPackage = { id: string; name: string; coins: number; price: number }

/** Spec §9's packages: shown before the server answers and when it fails. */
export const staticPackages: readonly NestcoinPackage[] = [
  ['Starter Pack', 10, 20],
  ['Budget Lister', 50, 100],
  ['Hustle Boost', 105, 200],
  ['Side Hustle', 275, 500],
  ['Market Hustler', 560, 1_000],
  ['Land Baron', 1_150, 2_000],
  ['Bizclass Bundle', 2_900, 5_000],
  ['Real Estate Pro', 6_000, 10_000],
  ['Tycoon Bundle', 15_500, 25_000],
  ['Investor Elite', 32_000, 50_000],
].map(([name, coins, price]) => ({ id: String(name), name: String(name), coins: Number(coins), price: Number(price) }))

/** Active Nestcoin packages, in display order. */
export async function getPackages(signal?: AbortSignal): Promise<NestcoinPackage[]> {
  let request = supabase.from('nestcoin_packages').select('id, name, coins, price').eq('is_active', true).order('sort_order')
  if (signal) request = request.abortSignal(signal)
  const { data } = await request.throwOnError()
  return data ?? []
}

export const getPackagesQueryOptions = () =>
  queryOptions({ queryKey: walletKeys.packages(), queryFn: ({ signal }) => getPackages(signal), staleTime: 60 * 60_000 })

export function usePackages() {
  const query = useQuery(getPackagesQueryOptions())
  return { ...query, packages: query.data?.length ? query.data : staticPackages }
}
