// SPDX-FileCopyrightText: 2026 SecureRoom authors
// SPDX-License-Identifier: Apache-2.0

/*
 * CTSS2 — tpm2-tss loaded when it is first used, as systemd loads it (dlopen_tpm2):
 * libtss2-esys.so.0 (ESAPI), libtss2-mu.so.0 (marshalling), libtss2-rc.so.0 (response
 * code texts) and libtss2-tctildr.so.0 (the TCTI loader) are opened with dlopen(3) at the
 * first call of any function below, not at program start. A process that never speaks to
 * a TPM (a login with an unbound PIN, a tool that reads no chip) never maps them or the
 * libraries they pull in (docs/DESIGN.md §2; docs/BENCHMARKS.md, "size").
 *
 * sr_X has the signature of tpm2-tss's X and calls it; while the libraries cannot be
 * loaded it returns SR_TSS2_RC_UNAVAILABLE (a TCTI-layer "not implemented"), void ones do
 * nothing, and sr_tss2_load_error says why. Types and constants are the real headers'.
 */
#ifndef CTSS2_H
#define CTSS2_H

#include <tss2/tss2_esys.h>
#include <tss2/tss2_mu.h>
#include <tss2/tss2_rc.h>
#include <tss2/tss2_tctildr.h>

/* TSS2_TCTI_RC_LAYER | TSS2_BASE_RC_NOT_IMPLEMENTED, spelled out: Swift imports no shifts. */
#define SR_TSS2_RC_UNAVAILABLE 0x000A0002U

/* Loads the four libraries if not yet loaded (thread-safe; a failure is tried again at the
 * next call); 0 when they are loaded. */
int sr_tss2_load(void);

/* Why they could not be loaded (dlerror(3)'s text, or the symbol one lacks); "" once loaded. */
const char *sr_tss2_load_error(void);

TSS2_RC sr_Esys_Create(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic,
                       const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR, TPM2B_PRIVATE **outPrivate,
                       TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData, TPM2B_DIGEST **creationHash,
                       TPMT_TK_CREATION **creationTicket);
TSS2_RC sr_Esys_CreatePrimary(ESYS_CONTEXT *esysContext, ESYS_TR primaryHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                              ESYS_TR shandle3, const TPM2B_SENSITIVE_CREATE *inSensitive, const TPM2B_PUBLIC *inPublic,
                              const TPM2B_DATA *outsideInfo, const TPML_PCR_SELECTION *creationPCR,
                              ESYS_TR *objectHandle, TPM2B_PUBLIC **outPublic, TPM2B_CREATION_DATA **creationData,
                              TPM2B_DIGEST **creationHash, TPMT_TK_CREATION **creationTicket);
TSS2_RC sr_Esys_DictionaryAttackParameters(ESYS_CONTEXT *esysContext, ESYS_TR lockHandle, ESYS_TR shandle1,
                                           ESYS_TR shandle2, ESYS_TR shandle3, UINT32 newMaxTries,
                                           UINT32 newRecoveryTime, UINT32 lockoutRecovery);
TSS2_RC sr_Esys_EvictControl(ESYS_CONTEXT *esysContext, ESYS_TR auth, ESYS_TR objectHandle, ESYS_TR shandle1,
                             ESYS_TR shandle2, ESYS_TR shandle3, TPMI_DH_PERSISTENT persistentHandle,
                             ESYS_TR *newObjectHandle);
void sr_Esys_Finalize(ESYS_CONTEXT **context);
TSS2_RC sr_Esys_FlushContext(ESYS_CONTEXT *esysContext, ESYS_TR flushHandle);
void sr_Esys_Free(void *__ptr);
TSS2_RC sr_Esys_GetCapability(ESYS_CONTEXT *esysContext, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                              TPM2_CAP capability, UINT32 property, UINT32 propertyCount, TPMI_YES_NO *moreData,
                              TPMS_CAPABILITY_DATA **capabilityData);
TSS2_RC sr_Esys_HMAC(ESYS_CONTEXT *esysContext, ESYS_TR handle, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                     const TPM2B_MAX_BUFFER *buffer, TPMI_ALG_HASH hashAlg, TPM2B_DIGEST **outHMAC);
TSS2_RC sr_Esys_HierarchyChangeAuth(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                                    ESYS_TR shandle3, const TPM2B_AUTH *newAuth);
TSS2_RC sr_Esys_Initialize(ESYS_CONTEXT **esys_context, TSS2_TCTI_CONTEXT *tcti, TSS2_ABI_VERSION *abiVersion);
TSS2_RC sr_Esys_Load(ESYS_CONTEXT *esysContext, ESYS_TR parentHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                     ESYS_TR shandle3, const TPM2B_PRIVATE *inPrivate, const TPM2B_PUBLIC *inPublic,
                     ESYS_TR *objectHandle);
TSS2_RC sr_Esys_NV_DefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                               ESYS_TR shandle3, const TPM2B_AUTH *auth, const TPM2B_NV_PUBLIC *publicInfo,
                               ESYS_TR *nvHandle);
TSS2_RC sr_Esys_NV_Read(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                        ESYS_TR shandle2, ESYS_TR shandle3, UINT16 size, UINT16 offset, TPM2B_MAX_NV_BUFFER **data);
TSS2_RC sr_Esys_NV_UndefineSpace(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                                 ESYS_TR shandle2, ESYS_TR shandle3);
TSS2_RC sr_Esys_NV_Write(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR nvIndex, ESYS_TR shandle1,
                         ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_MAX_NV_BUFFER *data, UINT16 offset);
TSS2_RC sr_Esys_PCR_Read(ESYS_CONTEXT *esysContext, ESYS_TR shandle1, ESYS_TR shandle2, ESYS_TR shandle3,
                         const TPML_PCR_SELECTION *pcrSelectionIn, UINT32 *pcrUpdateCounter,
                         TPML_PCR_SELECTION **pcrSelectionOut, TPML_DIGEST **pcrValues);
TSS2_RC sr_Esys_PolicyAuthValue(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3);
TSS2_RC sr_Esys_PolicyCommandCode(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                  ESYS_TR shandle3, TPM2_CC code);
TSS2_RC sr_Esys_PolicyGetDigest(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3, TPM2B_DIGEST **policyDigest);
TSS2_RC sr_Esys_PolicyNvWritten(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                                ESYS_TR shandle3, TPMI_YES_NO writtenSet);
TSS2_RC sr_Esys_PolicyOR(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                         ESYS_TR shandle3, const TPML_DIGEST *pHashList);
TSS2_RC sr_Esys_PolicyPCR(ESYS_CONTEXT *esysContext, ESYS_TR policySession, ESYS_TR shandle1, ESYS_TR shandle2,
                          ESYS_TR shandle3, const TPM2B_DIGEST *pcrDigest, const TPML_PCR_SELECTION *pcrs);
TSS2_RC sr_Esys_PolicySecret(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR policySession, ESYS_TR shandle1,
                             ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceTPM,
                             const TPM2B_DIGEST *cpHashA, const TPM2B_NONCE *policyRef, INT32 expiration,
                             TPM2B_TIMEOUT **timeout, TPMT_TK_AUTH **policyTicket);
TSS2_RC sr_Esys_SetPrimaryPolicy(ESYS_CONTEXT *esysContext, ESYS_TR authHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                                 ESYS_TR shandle3, const TPM2B_DIGEST *authPolicy, TPMI_ALG_HASH hashAlg);
TSS2_RC sr_Esys_StartAuthSession(ESYS_CONTEXT *esysContext, ESYS_TR tpmKey, ESYS_TR bind, ESYS_TR shandle1,
                                 ESYS_TR shandle2, ESYS_TR shandle3, const TPM2B_NONCE *nonceCaller,
                                 TPM2_SE sessionType, const TPMT_SYM_DEF *symmetric, TPMI_ALG_HASH authHash,
                                 ESYS_TR *sessionHandle);
TSS2_RC sr_Esys_TRSess_SetAttributes(ESYS_CONTEXT *esysContext, ESYS_TR session, TPMA_SESSION flags, TPMA_SESSION mask);
TSS2_RC sr_Esys_TR_Close(ESYS_CONTEXT *esys_context, ESYS_TR *rsrc_handle);
TSS2_RC sr_Esys_TR_FromTPMPublic(ESYS_CONTEXT *esysContext, TPM2_HANDLE tpm_handle, ESYS_TR optionalSession1,
                                 ESYS_TR optionalSession2, ESYS_TR optionalSession3, ESYS_TR *object);
TSS2_RC sr_Esys_TR_GetName(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_NAME **name);
TSS2_RC sr_Esys_TR_SetAuth(ESYS_CONTEXT *esysContext, ESYS_TR handle, TPM2B_AUTH const *authValue);
TSS2_RC sr_Esys_Unseal(ESYS_CONTEXT *esysContext, ESYS_TR itemHandle, ESYS_TR shandle1, ESYS_TR shandle2,
                       ESYS_TR shandle3, TPM2B_SENSITIVE_DATA **outData);
TSS2_RC sr_Tss2_MU_TPM2B_PRIVATE_Marshal(TPM2B_PRIVATE const *src, uint8_t buffer[], size_t buffer_size,
                                         size_t *offset);
TSS2_RC sr_Tss2_MU_TPM2B_PRIVATE_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                           TPM2B_PRIVATE *dest);
TSS2_RC sr_Tss2_MU_TPM2B_PUBLIC_Marshal(TPM2B_PUBLIC const *src, uint8_t buffer[], size_t buffer_size, size_t *offset);
TSS2_RC sr_Tss2_MU_TPM2B_PUBLIC_Unmarshal(uint8_t const buffer[], size_t buffer_size, size_t *offset,
                                          TPM2B_PUBLIC *dest);
const char *sr_Tss2_RC_Decode(TSS2_RC rc);
void sr_Tss2_TctiLdr_Finalize(TSS2_TCTI_CONTEXT **context);
TSS2_RC sr_Tss2_TctiLdr_Initialize(const char *nameConf, TSS2_TCTI_CONTEXT **context);

#endif
