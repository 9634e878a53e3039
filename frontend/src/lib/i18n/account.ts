import { enAccount } from './en-account'
import { addMessages } from './i18n'

// Registered when the profile or KYC chunk loads (every module using these
// keys imports this file), so the landing bundle never carries this copy.
// The Kiswahili side is part of the lazily loaded sw.ts catalogue.
addMessages({ en: enAccount, sw: {} })
