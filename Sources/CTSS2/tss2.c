// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

#include "CTSS2.h"
#include "CSecureRoomSystem.h"

#include <dlfcn.h>
#include <stdio.h>

/* Every tpm2-tss function SecureRoom calls, with the library that has it. */
#define SR_TSS2_FUNCTIONS(X)                                                                                           \
    X(esys, Esys_Create)                                                                                               \
    X(esys, Esys_CreatePrimary)                                                                                        \
    X(esys, Esys_DictionaryAttackParameters)                                                                           \
    X(esys, Esys_EvictControl)                                                                                         \
    X(esys, Esys_Finalize)                                                                                             \
    X(esys, Esys_FlushContext)                                                                                         \
    X(esys, Esys_Free)                                                                                                 \
    X(esys, Esys_GetCapability)                                                                                        \
    X(esys, Esys_HMAC)                                                                                                 \
    X(esys, Esys_HierarchyChangeAuth)                                                                                  \
    X(esys, Esys_Initialize)                                                                                           \
    X(esys, Esys_Load)                                                                                                 \
    X(esys, Esys_NV_DefineSpace)                                                                                       \
    X(esys, Esys_NV_Read)                                                                                              \
    X(esys, Esys_NV_UndefineSpace)                                                                                     \
    X(esys, Esys_NV_Write)                                                                                             \
    X(esys, Esys_PCR_Read)                                                                                             \
    X(esys, Esys_PolicyAuthValue)                                                                                      \
    X(esys, Esys_PolicyCommandCode)                                                                                    \
    X(esys, Esys_PolicyGetDigest)                                                                                      \
    X(esys, Esys_PolicyNvWritten)                                                                                      \
    X(esys, Esys_PolicyOR)                                                                                             \
    X(esys, Esys_PolicyPCR)                                                                                            \
    X(esys, Esys_PolicySecret)                                                                                         \
    X(esys, Esys_SetPrimaryPolicy)                                                                                     \
    X(esys, Esys_StartAuthSession)                                                                                     \
    X(esys, Esys_TRSess_SetAttributes)                                                                                 \
    X(esys, Esys_TR_Close)                                                                                             \
    X(esys, Esys_TR_FromTPMPublic)                                                                                     \
    X(esys, Esys_TR_GetName)                                                                                           \
    X(esys, Esys_TR_SetAuth)                                                                                           \
    X(esys, Esys_Unseal)                                                                                               \
    X(mu, Tss2_MU_TPM2B_PRIVATE_Marshal)                                                                               \
    X(mu, Tss2_MU_TPM2B_PRIVATE_Unmarshal)                                                                             \
    X(mu, Tss2_MU_TPM2B_PUBLIC_Marshal)                                                                                \
    X(mu, Tss2_MU_TPM2B_PUBLIC_Unmarshal)                                                                              \
    X(rc, Tss2_RC_Decode)                                                                                              \
    X(tctildr, Tss2_TctiLdr_Finalize)                                                                                  \
    X(tctildr, Tss2_TctiLdr_Initialize)

/* The functions, resolved by load(). */
static struct {
#define SR_POINTER(library, name) __typeof__(name) *name;
    SR_TSS2_FUNCTIONS(SR_POINTER)
#undef SR_POINTER
} fn;

/* Opens the four libraries and resolves every function, or leaves nothing open. */
static int load(struct sr_lazy_library *library)
{
    void *esys = sr_lazy_open(library, "libtss2-esys.so.0", RTLD_LOCAL);
    void *mu = esys ? sr_lazy_open(library, "libtss2-mu.so.0", RTLD_LOCAL) : NULL;
    void *rc = mu ? sr_lazy_open(library, "libtss2-rc.so.0", RTLD_LOCAL) : NULL;
    void *tctildr = rc ? sr_lazy_open(library, "libtss2-tctildr.so.0", RTLD_LOCAL) : NULL;
    int complete = tctildr != NULL;
#define SR_RESOLVE(handle, name)                                                                                       \
    if (complete && !(fn.name = (__typeof__(fn.name))dlsym(handle, #name))) {                                          \
        snprintf(library->error, sizeof library->error, "%s: no symbol %s", #handle, #name);                           \
        complete = 0;                                                                                                  \
    }
    SR_TSS2_FUNCTIONS(SR_RESOLVE)
#undef SR_RESOLVE
    if (complete)
        return 0;
    void *handles[] = {tctildr, rc, mu, esys};
    for (size_t i = 0; i < sizeof handles / sizeof handles[0]; i++)
        if (handles[i])
            dlclose(handles[i]);
    return -1;
}

static struct sr_lazy_library tss2 = SR_LAZY_LIBRARY(load, "tpm2-tss is not loaded");

static int loaded(void) { return sr_lazy_ready(&tss2); }

int sr_tss2_load(void) { return loaded() ? 0 : -1; }

const char *sr_tss2_load_error(void) { return sr_lazy_error(&tss2); }

TSS2_RC sr_Esys_Create(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic,
                       const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate,
                       TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash,
                       TPMT_TK_CREATION **creationTicket)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_Create(esysContext, parentHandle, shandle1, shandle2, shandle3, inSensitive, inPublic, outsideInfo,
                          creationPCR, outPrivate, outPublic, creationData, creationHash, creationTicket);
}
TSS2_RC sr_Esys_CreatePrimary(ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                              ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic,
                              const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR,
                              ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData,
                              TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_CreatePrimary(esysContext, primaryHandle, shandle1, shandle2, shandle3, inSensitive, inPublic,
                                 outsideInfo, creationPCR, objectHandle, outPublic, creationData, creationHash,
                                 creationTicket);
}
TSS2_RC sr_Esys_DictionaryAttackParameters(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1,
                                           ESYS_TR shandle2, ESYS_TR shandle3, UINT32 newMaxTries,
                                           UINT32 newRecoveryTime, UINT32 lockoutRecovery)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_DictionaryAttackParameters(esysContext, lockHandle, shandle1, shandle2, shandle3, newMaxTries,
                                              newRecoveryTime, lockoutRecovery);
}
TSS2_RC sr_Esys_EvictControl(ESYS_CONTEXT *esysContext, ESYS_TR auth, ESYS_TR objectHandle, ESYS_TR shandle1,
                             ESYS_TR shandle2, ESYS_TR shandle3, TPMI_DH_PERSISTENT persistentHandle,
                             ESYS_TR *newObjectHandle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_EvictControl(esysContext, auth, objectHandle, shandle1, shandle2, shandle3, persistentHandle,
                                newObjectHandle);
}
void sr_Esys_Finalize(ESYS_CONTEXT **context)
{
    if (!loaded())
        return;
    fn.Esys_Finalize(context);
}
TSS2_RC sr_Esys_FlushContext(ESYS_CONTEXT *esysContext, ESYS_TR flushHandle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_FlushContext(esysContext, flushHandle);
}
void sr_Esys_Free(void *__ptr)
{
    if (!loaded())
        return;
    fn.Esys_Free(__ptr);
}
TSS2_RC sr_Esys_GetCapability(ESYS_CONTEXT *esysContext, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                              TPM2_CAP capability, UINT32 property, UINT32 propertyCount, TPMI_YES_NO *moreData,
                              TPMS_CAPABILITY_DATA **capabilityData)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_GetCapability(esysContext, shandle1, shandle2, shandle3, capability, property, propertyCount,
                                 moreData, capabilityData);
}
TSS2_RC sr_Esys_HMAC(ESYS_CONTEXT *esysContext, ESYS_TR handle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                     const TPM2B_MAX_BUFFER *buffer, TPMI_ALG_HASH hashAlg, TPM2B_DIGEST **outHMAC)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_HMAC(esysContext, handle, shandle1, shandle2, shandle3, buffer, hashAlg, outHMAC);
}
TSS2_RC sr_Esys_HierarchyChangeAuth(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                                    ESYS_TR shandle3, const TPM2B_AUTH *newAuth)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_HierarchyChangeAuth(esysContext, authHandle, shandle1, shandle2, shandle3, newAuth);
}
TSS2_RC sr_Esys_Initialize(ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_Initialize(esys_context, tcti, abiVersion);
}
TSS2_RC sr_Esys_Load(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                     ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic,
                     ESYS_TR *objectHandle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_Load(esysContext, parentHandle, shandle1, shandle2, shandle3, inPrivate, inPublic, objectHandle);
}
TSS2_RC sr_Esys_NV_DefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                               ESYS_TR shandle3, const TPM2B_AUTH *auth, const TPM2B_NV_PUBLIC *publicInfo,
                               ESYS_TR *nvHandle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_NV_DefineSpace(esysContext, authHandle, shandle1, shandle2, shandle3, auth, publicInfo, nvHandle);
}
TSS2_RC sr_Esys_NV_Read(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                        ESYS_TR shandle2, ESYS_TR shandle3, UINT16 size, UINT16 offset, TPM2B_MAX_NV_BUFFER **data)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_NV_Read(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3, size, offset, data);
}
TSS2_RC sr_Esys_NV_UndefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                                 ESYS_TR shandle2, ESYS_TR shandle3)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_NV_UndefineSpace(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3);
}
TSS2_RC sr_Esys_NV_Write(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                         ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_MAX_NV_BUFFER *data, UINT16 offset)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_NV_Write(esysContext, authHandle, nvIndex, shandle1, shandle2, shandle3, data, offset);
}
TSS2_RC sr_Esys_PCR_Read(ESYS_CONTEXT *esysContext, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                         const TPML_PCR_SELECTION *pcrSelectionIn, UINT32 *pcrUpdateCounter,
                         TPML_PCR_SELECTION **pcrSelectionOut, TPML_DIGEST **pcrValues)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PCR_Read(esysContext, shandle1, shandle2, shandle3, pcrSelectionIn, pcrUpdateCounter,
                            pcrSelectionOut, pcrValues);
}
TSS2_RC sr_Esys_PolicyAuthValue(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyAuthValue(esysContext, policySession, shandle1, shandle2, shandle3);
}
TSS2_RC sr_Esys_PolicyCommandCode(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                  ESYS_TR shandle3, TPM2_CC code)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyCommandCode(esysContext, policySession, shandle1, shandle2, shandle3, code);
}
TSS2_RC sr_Esys_PolicyGetDigest(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3, TPM2B_DIGEST **policyDigest)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyGetDigest(esysContext, policySession, shandle1, shandle2, shandle3, policyDigest);
}
TSS2_RC sr_Esys_PolicyNvWritten(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3, TPMI_YES_NO writtenSet)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyNvWritten(esysContext, policySession, shandle1, shandle2, shandle3, writtenSet);
}
TSS2_RC sr_Esys_PolicyOR(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                         ESYS_TR shandle3, const TPML_DIGEST *pHashList)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyOR(esysContext, policySession, shandle1, shandle2, shandle3, pHashList);
}
TSS2_RC sr_Esys_PolicyPCR(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                          ESYS_TR shandle3, const TPM2B_DIGEST *pcrDigest, const TPML_PCR_SELECTION *pcrs)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicyPCR(esysContext, policySession, shandle1, shandle2, shandle3, pcrDigest, pcrs);
}
TSS2_RC sr_Esys_PolicySecret(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR policySession, ESYS_TR shandle1,
                             ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceTPM,
                             const TPM2B_DIGEST *cpHashA, const TPM2B_NONCE *policyRef, INT32 expiration,
                             TPM2B_TIMEOUT **timeout, TPMT_TK_AUTH **policyTicket)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_PolicySecret(esysContext, authHandle, policySession, shandle1, shandle2, shandle3, nonceTPM, cpHashA,
                                policyRef, expiration, timeout, policyTicket);
}
TSS2_RC sr_Esys_SetPrimaryPolicy(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                                 ESYS_TR shandle3, const TPM2B_DIGEST *authPolicy, TPMI_ALG_HASH hashAlg)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_SetPrimaryPolicy(esysContext, authHandle, shandle1, shandle2, shandle3, authPolicy, hashAlg);
}
TSS2_RC sr_Esys_StartAuthSession(ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1,
                                 ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller,
                                 TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash,
                                 ESYS_TR *sessionHandle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_StartAuthSession(esysContext, tpmKey, bind, shandle1, shandle2, shandle3, nonceCaller, sessionType,
                                    symmetric, authHash, sessionHandle);
}
TSS2_RC sr_Esys_TRSess_SetAttributes(ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_TRSess_SetAttributes(esysContext, session, flags, mask);
}
TSS2_RC sr_Esys_TR_Close(ESYS_CONTEXT *esys_context, ESYS_TR *rsrc_handle)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_TR_Close(esys_context, rsrc_handle);
}
TSS2_RC sr_Esys_TR_FromTPMPublic(ESYS_CONTEXT *esysContext, TPM2_HANDLE tpm_handle, ESYS_TR optionalSession1,
                                 ESYS_TR optionalSession2, ESYS_TR optionalSession3, ESYS_TR *object)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_TR_FromTPMPublic(esysContext, tpm_handle, optionalSession1, optionalSession2, optionalSession3,
                                    object);
}
TSS2_RC sr_Esys_TR_GetName(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_NAME **name)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_TR_GetName(esysContext, handle, name);
}
TSS2_RC sr_Esys_TR_SetAuth(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_TR_SetAuth(esysContext, handle, authValue);
}
TSS2_RC sr_Esys_Unseal(ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Esys_Unseal(esysContext, itemHandle, shandle1, shandle2, shandle3, outData);
}
TSS2_RC sr_Tss2_MU_TPM2B_PRIVATE_Marshal(TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size, size_t *offset)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Tss2_MU_TPM2B_PRIVATE_Marshal(src, buffer, buffer_size, offset);
}
TSS2_RC sr_Tss2_MU_TPM2B_PRIVATE_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                           TPM2B_PRIVATE *dest)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Tss2_MU_TPM2B_PRIVATE_Unmarshal(buffer, buffer_size, offset, dest);
}
TSS2_RC sr_Tss2_MU_TPM2B_PUBLIC_Marshal(TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Tss2_MU_TPM2B_PUBLIC_Marshal(src, buffer, buffer_size, offset);
}
TSS2_RC sr_Tss2_MU_TPM2B_PUBLIC_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                          TPM2B_PUBLIC *dest)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Tss2_MU_TPM2B_PUBLIC_Unmarshal(buffer, buffer_size, offset, dest);
}
const char *sr_Tss2_RC_Decode(TSS2_RC rc)
{
    if (!loaded())
        return "tpm2-tss is not loaded";
    return fn.Tss2_RC_Decode(rc);
}
void sr_Tss2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context)
{
    if (!loaded())
        return;
    fn.Tss2_TctiLdr_Finalize(context);
}
TSS2_RC sr_Tss2_TctiLdr_Initialize(const char *nameConf, TSS2_TCTI_CONTEXT **context)
{
    if (!loaded())
        return SR_TSS2_RC_UNAVAILABLE;
    return fn.Tss2_TctiLdr_Initialize(nameConf, context);
}
