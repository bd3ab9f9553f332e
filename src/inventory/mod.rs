//! Inventory: facts discovered once and shared by every check.
//!
//! Each fact is computed lazily on first use (checks run concurrently; a second check asking
//! for the same fact waits for the first), so each tool is spawned at most once per run and a
//! `--only` run pays only for what it asks.

pub mod clang;
pub mod devicelibs;
pub(crate) mod expand;
pub(crate) mod hipcc;
pub(crate) mod libraries;
pub(crate) mod python;
pub(crate) mod roots;
pub mod targets;
pub(crate) mod telemetry;
pub mod versions;

use crate::config::Config;
use crate::host::Host;
use serde_json::{json, Value};
use std::sync::OnceLock;

/// The paths one run examined (machine paths, as found and resolved): what a pass of its
/// checks speaks for.
#[derive(Debug, Clone, Default)]
pub(crate) struct Examined {
    /// The clang drivers judged (the chosen clang as found, resolved, and the binary a wrapper
    /// runs; the clang hipcc runs when hipcc was asked).
    pub compilers: Vec<std::path::PathBuf>,
    pub compiler_majors: Vec<u32>,
    /// Other clangs found but not judged (`--clang` judges one of them).
    pub other_compilers: Vec<std::path::PathBuf>,
    pub hipccs: Vec<std::path::PathBuf>,
    /// The ld.lld clang's HIP driver runs for a device link.
    pub linkers: Vec<std::path::PathBuf>,
    pub roots: Vec<std::path::PathBuf>,
    pub device_lib_dirs: Vec<std::path::PathBuf>,
    /// The key libraries the loader would open (as found and resolved).
    pub libraries: Vec<std::path::PathBuf>,
}

pub(crate) struct Inventory<'a> {
    pub host: &'a Host,
    pub cfg: &'a Config,
    roots: OnceLock<Vec<roots::RocmRoot>>,
    clang_choice: OnceLock<Option<clang::ClangChoice>>,
    clang: OnceLock<Option<clang::ClangInfo>>,
    hip_driver: OnceLock<clang::HipDriverView>,
    hipcc: OnceLock<Option<hipcc::HipccView>>,
    device_libs: OnceLock<devicelibs::DeviceLibs>,
    libraries: OnceLock<Vec<libraries::LibraryResolution>>,
    targets: OnceLock<targets::Targets>,
    gpu: OnceLock<crate::gpu::Topology>,
    health: OnceLock<crate::gpu::health::Health>,
    gpu_layers: OnceLock<crate::gpu::layers::Layers>,
    kernel_log: OnceLock<Result<crate::kernlog::KernelLog, crate::kernlog::Unavailable>>,
    kernel_events: OnceLock<Vec<(usize, crate::kernlog::Event)>>,
    kernel_history:
        OnceLock<Result<crate::kernlog::history::History, crate::kernlog::history::NoHistory>>,
}

impl<'a> Inventory<'a> {
    pub(crate) fn new(host: &'a Host, cfg: &'a Config) -> Self {
        Inventory {
            host,
            cfg,
            roots: OnceLock::new(),
            clang_choice: OnceLock::new(),
            clang: OnceLock::new(),
            hip_driver: OnceLock::new(),
            hipcc: OnceLock::new(),
            device_libs: OnceLock::new(),
            libraries: OnceLock::new(),
            targets: OnceLock::new(),
            gpu: OnceLock::new(),
            health: OnceLock::new(),
            gpu_layers: OnceLock::new(),
            kernel_log: OnceLock::new(),
            kernel_events: OnceLock::new(),
            kernel_history: OnceLock::new(),
        }
    }

    /// ROCm roots, most authoritative first (`--rocm-path`, `ROCM_PATH`, ...).
    pub(crate) fn roots(&self) -> &[roots::RocmRoot] {
        self.roots
            .get_or_init(|| roots::discover(self.host, self.cfg))
    }

    /// The root the toolchain is judged against: the first discovered.
    pub(crate) fn primary_root(&self) -> Option<&roots::RocmRoot> {
        self.roots().first()
    }

    /// Which clang the doctor judges (found from files; nothing run yet). Commands that need
    /// only its path start from this, beside the probes [`Inventory::clang`] runs.
    pub(crate) fn clang_choice(&self) -> Option<&clang::ClangChoice> {
        self.clang_choice
            .get_or_init(|| clang::choose(self))
            .as_ref()
    }

    /// The clang the doctor judges, with what running it taught us.
    pub(crate) fn clang(&self) -> Option<&clang::ClangInfo> {
        self.clang.get_or_init(|| clang::discover(self)).as_ref()
    }

    /// What clang's HIP driver would do for a device compile (`-###`), with the env as it is.
    pub(crate) fn hip_driver(&self) -> &clang::HipDriverView {
        self.hip_driver.get_or_init(|| clang::hip_dry_run(self))
    }

    /// The ISA dry runs ask about: the first target, else gfx900 (every clang with AMDGPU knows it).
    pub(crate) fn probe_isa(&self) -> String {
        self.targets()
            .isas
            .first()
            .map(|t| t.isa.to_string())
            .unwrap_or_else(|| "gfx900".into())
    }

    /// What hipcc runs (its clang and the flags it adds), asked from hipcc; `None` without one.
    pub(crate) fn hipcc(&self) -> Option<&hipcc::HipccView> {
        self.hipcc.get_or_init(|| hipcc::discover(self)).as_ref()
    }

    /// On another root, when it has a clang: why its programs are not run (a `--sysroot`
    /// without `--run-root-programs`: [`Host::root_programs_refused`]) or cannot run on this host
    /// (the loader error of its clang), or `None` when they can. Without a clang the checks say
    /// what the files say ("no clang", "no assembler", "no target ISA").
    pub(crate) fn cannot_run_here(&self) -> Option<&str> {
        self.clang()?.cannot_run_here.as_deref()
    }

    pub(crate) fn device_libs(&self) -> &devicelibs::DeviceLibs {
        self.device_libs.get_or_init(|| devicelibs::discover(self))
    }

    pub(crate) fn libraries(&self) -> &[libraries::LibraryResolution] {
        self.libraries.get_or_init(|| libraries::resolve_all(self))
    }

    /// Target ISAs to judge the toolchain for, with where each came from.
    pub(crate) fn targets(&self) -> &targets::Targets {
        self.targets.get_or_init(|| targets::collect(self))
    }

    /// GPU agents from KFD sysfs (empty on a machine without GPUs).
    pub(crate) fn gpu(&self) -> &crate::gpu::Topology {
        self.gpu.get_or_init(|| crate::gpu::discover(self.host))
    }

    /// The GPU topology if a check asked for it.
    /// The amdgpu health evidence (RAS, bad pages, links, hives, firmware, thermal), read once.
    pub(crate) fn health(&self) -> &crate::gpu::health::Health {
        self.health
            .get_or_init(|| crate::gpu::health::read_health(self.host))
    }

    /// The GPUs counted at each layer, PCI bus to HIP (issue 26, item 4), read once.
    pub(crate) fn gpu_layers(&self) -> &crate::gpu::layers::Layers {
        self.gpu_layers
            .get_or_init(|| crate::gpu::layers::read(self.host, self.gpu()))
    }

    /// The layer counts if a check asked for them (the `--json` section `gpu_layers`).
    pub(crate) fn gpu_layers_if_computed(&self) -> Option<&crate::gpu::layers::Layers> {
        self.gpu_layers.get()
    }

    /// The kernel log of this boot (or why it cannot be read), read once.
    pub(crate) fn kernel_log(
        &self,
    ) -> &Result<crate::kernlog::KernelLog, crate::kernlog::Unavailable> {
        self.kernel_log
            .get_or_init(|| crate::kernlog::read(self.host))
    }

    /// The amdgpu/KFD events of the kernel log (empty when it cannot be read).
    pub(crate) fn kernel_events(&self) -> &[(usize, crate::kernlog::Event)] {
        self.kernel_events.get_or_init(|| match self.kernel_log() {
            Ok(k) => crate::kernlog::amdgpu_events(&k.lines),
            Err(_) => Vec::new(),
        })
    }

    /// The earlier boots' kernel log (`--boots`, the fleet modes), read once.
    pub(crate) fn kernel_history(
        &self,
    ) -> &Result<crate::kernlog::history::History, crate::kernlog::history::NoHistory> {
        self.kernel_history
            .get_or_init(|| crate::kernlog::history::read_history(self.host, self.cfg.boots))
    }

    pub(crate) fn gpu_if_computed(&self) -> Option<&crate::gpu::Topology> {
        self.gpu.get()
    }

    /// One line naming what was judged (only facts already computed; nothing is run for it):
    /// `ROCm /usr (distribution FHS layout, HIP 5.2.21153) · clang 15.0.6 · 2 GPUs: gfx90a, gfx1030`.
    pub(crate) fn headline(&self) -> String {
        let mut parts = Vec::new();
        if let Some(roots) = self.roots.get() {
            parts.push(match roots.first() {
                Some(r) => {
                    let v = r
                        .versions
                        .rocm
                        .as_ref()
                        .map(|v| format!(", ROCm {}", v.version))
                        .or_else(|| {
                            r.versions
                                .hip
                                .as_ref()
                                .map(|v| format!(", HIP {}", v.version))
                        });
                    format!(
                        "ROCm root {} ({}{})",
                        r.path.display(),
                        r.layout.describe(),
                        v.unwrap_or_default()
                    )
                }
                None => "no ROCm root".to_string(),
            });
        }
        if let Some(c) = self.clang.get() {
            parts.push(match c {
                Some(c) => format!("clang {}", c.version.as_deref().unwrap_or("?")),
                None => "no clang".to_string(),
            });
        }
        if let Some(t) = self.gpu.get() {
            let names: Vec<String> = t
                .agents
                .iter()
                .map(|a| a.gfx.clone().unwrap_or_else(|| "unknown".into()))
                .collect();
            parts.push(if names.is_empty() {
                "no GPU".to_string()
            } else {
                format!(
                    "{} GPU{}: {}",
                    names.len(),
                    if names.len() == 1 { "" } else { "s" },
                    names.join(", ")
                )
            });
        }
        parts.join(" · ")
    }

    /// The paths this run examined, from the facts computed so far (a fact no check asked for
    /// was not examined): `why` compares them with the paths an error text names.
    pub(crate) fn examined(&self) -> Examined {
        let mut e = Examined::default();
        let add = |v: &mut Vec<std::path::PathBuf>, p: &std::path::Path| {
            if !v.iter().any(|x| x == p) {
                v.push(p.to_path_buf());
            }
        };
        match self.clang.get() {
            Some(Some(c)) => {
                for p in [Some(&c.path), c.real_path.as_ref(), c.binary.as_ref()]
                    .into_iter()
                    .flatten()
                {
                    add(&mut e.compilers, p);
                }
                e.compiler_majors.extend(c.major());
                for (p, _) in &c.others {
                    add(&mut e.other_compilers, p);
                }
            }
            _ => {
                if let Some(Some(c)) = self.clang_choice.get() {
                    for (p, _) in &c.others {
                        add(&mut e.other_compilers, p);
                    }
                }
            }
        }
        if let Some(Some(h)) = self.hipcc.get() {
            add(&mut e.hipccs, &h.path);
            if let Some(c) = &h.clang {
                add(&mut e.compilers, c);
            }
        }
        if let Some(d) = self.hip_driver.get() {
            if let Some(l) = &d.device_linker {
                add(&mut e.linkers, l);
            }
        }
        for r in self.roots.get().into_iter().flatten() {
            add(&mut e.roots, &r.path);
            add(&mut e.roots, &r.canonical);
        }
        for d in self
            .device_libs
            .get()
            .map(|d| &d.dirs[..])
            .unwrap_or_default()
        {
            add(&mut e.device_lib_dirs, &d.path);
        }
        for l in self.libraries.get().into_iter().flatten() {
            for p in [l.path.as_ref(), l.realpath.as_ref()].into_iter().flatten() {
                add(&mut e.libraries, p);
            }
        }
        e
    }

    /// The facts computed so far, for `--json`.
    pub(crate) fn to_json(&self) -> Value {
        let mut v = json!({});
        let o = v.as_object_mut().expect("object");
        if let Some(r) = self.roots.get() {
            o.insert("rocm_roots".into(), json!(r));
        }
        if let Some(c) = self.clang.get() {
            o.insert("clang".into(), json!(c));
        }
        if let Some(d) = self.hip_driver.get() {
            o.insert("hip_driver".into(), json!(d));
        }
        if let Some(d) = self.device_libs.get() {
            o.insert("device_libs".into(), json!(d));
        }
        if let Some(l) = self.libraries.get() {
            o.insert("libraries".into(), json!(l));
        }
        if let Some(t) = self.targets.get() {
            o.insert("targets".into(), json!(t));
        }
        if let Some(h) = self.kernel_history.get() {
            let this_boot = self.kernel_events.get().map(Vec::as_slice).unwrap_or(&[]);
            let json = crate::kernlog::history::to_json(
                this_boot.iter().map(|(_, e)| e),
                h,
                self.cfg.boots,
            );
            o.insert("kernel_history".into(), json);
        }
        v
    }
}
