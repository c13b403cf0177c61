//! The production readiness review rules: the PRR file of a KEP and its
//! approvers, and PRR files without a KEP.

use super::{at, prr_required};
use crate::finding::Finding;
use crate::kep::Kep;
use crate::kep::prr::PrrFile;
use crate::model::Model;

/// The rules over a KEP's PRR file: where it is, whether it exists when
/// the KEP needs one, and who approved it.
pub(super) fn prr(model: &Model, kep: &Kep, out: &mut Vec<Finding>) {
    let Some(n) = kep.number() else { return };
    let expected = format!("keps/prod-readiness/{}/{n}.yaml", kep.meta.owning_sig);
    match model.prr_for(kep) {
        None => {
            if let Some(elsewhere) = model.prr_anywhere(n)
                && !kep.meta.owning_sig.is_empty()
            {
                out.push(
                    Finding::error(
                        "prr-wrong-sig",
                        &elsewhere.path,
                        format!(
                            "PRR file for KEP-{n} is not under the owning SIG ({})",
                            kep.meta.owning_sig
                        ),
                    )
                    .kep(Some(n))
                    .hint(format!("move it to {expected}")),
                );
            }
            if prr_required(kep) && model.prr_anywhere(n).is_none() {
                out.push(
                    at(
                        kep,
                        "prr-file-missing",
                        "latest-milestone",
                        format!(
                            "{} KEP targeting {} needs a production readiness review, but {expected} does not exist",
                            kep.meta.status, kep.meta.latest_milestone
                        ),
                    )
                    .hint(format!("add {expected} with the approver for stage {}", kep.meta.stage)),
                );
            }
        }
        Some(file) => {
            other_approvers(model, kep, file, n, out);
            if prr_required(kep) {
                current_approver(model, kep, file, n, out);
            }
        }
    }
}

/// The approvers of the stages other than the current one (a warning when
/// one is not a PRR approver).
fn other_approvers(model: &Model, kep: &Kep, file: &PrrFile, n: u32, out: &mut Vec<Finding>) {
    // The current stage's approver is checked (as an error) by current_approver.
    let checked = prr_required(kep).then_some(&kep.meta.stage);
    for (stage, approval) in &file.approvals {
        if !approval.approver.is_empty()
            && model.aliases.present
            && !model
                .aliases
                .is_prr_approver_or_emeritus(&approval.approver)
            && checked != Some(stage)
        {
            out.push(
                Finding::warning(
                    "prr-approver-unknown",
                    &file.path,
                    format!(
                        "{stage} approver {} is not a PRR approver in OWNERS_ALIASES",
                        approval.approver
                    ),
                )
                .at(approval.line)
                .kep(Some(n))
                .hint("PRR approvers are listed under prod-readiness-approvers"),
            );
        }
    }
}

/// The approval of the KEP's current stage, which a KEP that needs a PRR
/// must have, from a PRR approver.
fn current_approver(model: &Model, kep: &Kep, file: &PrrFile, n: u32, out: &mut Vec<Finding>) {
    let stage = &kep.meta.stage;
    if stage.valid().is_none() {
        return; // reported by stage-required / stage-enum
    }
    match file.approval(stage) {
        None => out.push(
            Finding::error(
                "prr-stage-missing",
                &file.path,
                format!("PRR file has no approver for the KEP's current stage `{stage}`"),
            )
            .at(Some(1))
            .kep(Some(n))
            .hint(format!(
                "add `{stage}:\\n  approver: \"@<prr-approver>\"` once PRR approves this stage"
            )),
        ),
        Some(a) => {
            if model.aliases.present && !model.aliases.is_prr_approver_or_emeritus(&a.approver) {
                out.push(
                    Finding::error(
                        "prr-approver-invalid",
                        &file.path,
                        format!(
                            "{stage} approver {} is not in OWNERS_ALIASES prod-readiness-approvers",
                            a.approver
                        ),
                    )
                    .at(a.line)
                    .kep(Some(n))
                    .hint("ask one of the prod-readiness-approvers to review and approve"),
                );
            }
        }
    }
}

pub(super) fn prr_files(model: &Model) -> Vec<Finding> {
    let mut out = Vec::new();
    for f in &model.prr_files {
        if f.error.is_some() {
            continue;
        }
        let written = crate::kep::parse_number(&f.kep_number);
        if let (Some(file_n), Some(w)) = (f.file_number, written)
            && file_n != w
        {
            out.push(
                Finding::warning(
                    "prr-number-mismatch",
                    &f.path,
                    format!("kep-number {w} differs from the file name's {file_n}"),
                )
                .at(Some(1))
                .kep(Some(file_n))
                .hint("the file is looked up by its name; fix kep-number"),
            );
        }
        if let Some(n) = f.number()
            && model.kep(n).is_none()
        {
            out.push(
                Finding::warning(
                    "prr-orphan",
                    &f.path,
                    format!("no KEP with number {n} exists"),
                )
                .kep(Some(n))
                .hint("remove the file or fix its name"),
            );
        }
    }
    out
}
