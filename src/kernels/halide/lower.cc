// kernels::lower for the Halide provider: build the template's pipeline, pin every buffer's sizes and
// strides (so loop extents and flattened indices fold to constants), run Halide's lowering (no LLVM),
// and walk the lowered statement into a LoopNest.
#include <algorithm>
#include <map>
#include <optional>

#include "kernels/halide/halide_provider.h"
#include "kernels/halide/halide_template.h"
#include "kernels/loop_nest.h"

namespace tensorperf::kernels {
namespace halide {
namespace {

using Halide::Expr;
using Halide::Internal::Interval;
using Halide::Internal::IRVisitor;
using Halide::Internal::Scope;

std::optional<int64_t> as_int(const Expr& e) {
  if (const int64_t* v = Halide::Internal::as_const_int(e)) return *v;
  if (const uint64_t* v = Halide::Internal::as_const_uint(e)) return static_cast<int64_t>(*v);
  return std::nullopt;
}

int64_t product(const std::vector<int>& v) {
  int64_t n = 1;
  for (int x : v) n *= x;
  return n;
}

// What one expression does: operations and loads, with the loads' indices for stride analysis.
struct ExprWork {
  OpCounts ops;
  struct LoadAt {
    std::string buffer;
    int elem_bytes;
    int lanes;
    Expr index;
  };
  std::vector<LoadAt> loads;
};

class OpCounter : public IRVisitor {
 public:
  explicit OpCounter(ExprWork& out) : out_(out) {}

 private:
  using IRVisitor::visit;
  static bool is_float(const Expr& e) { return e.type().is_float(); }

  void visit(const Halide::Internal::Add* op) override {
    if (is_float(op->a) || is_float(op->b)) {
      const auto* ma = op->a.as<Halide::Internal::Mul>();
      const auto* mb = op->b.as<Halide::Internal::Mul>();
      const Halide::Internal::Mul* m = ma != nullptr ? ma : mb;
      if (m != nullptr) {
        ++out_.ops.float_fma;
        m->a.accept(this);
        m->b.accept(this);
        (ma != nullptr ? op->b : op->a).accept(this);
        return;
      }
      ++out_.ops.float_add;
    } else {
      ++out_.ops.int_ops;
    }
    IRVisitor::visit(op);
  }
  void visit(const Halide::Internal::Sub* op) override { arith(op, out_.ops.float_add); }
  void visit(const Halide::Internal::Mul* op) override { arith(op, out_.ops.float_mul); }
  void visit(const Halide::Internal::Div* op) override { arith(op, out_.ops.float_div); }
  void visit(const Halide::Internal::Mod* op) override { arith(op, out_.ops.float_div); }
  void visit(const Halide::Internal::Min* op) override { arith(op, out_.ops.float_cmp); }
  void visit(const Halide::Internal::Max* op) override { arith(op, out_.ops.float_cmp); }
  void visit(const Halide::Internal::LT* op) override { compare(op); }
  void visit(const Halide::Internal::LE* op) override { compare(op); }
  void visit(const Halide::Internal::GT* op) override { compare(op); }
  void visit(const Halide::Internal::GE* op) override { compare(op); }
  void visit(const Halide::Internal::EQ* op) override { compare(op); }
  void visit(const Halide::Internal::NE* op) override { compare(op); }
  void visit(const Halide::Internal::Select* op) override {
    ++out_.ops.select;
    IRVisitor::visit(op);
  }
  void visit(const Halide::Internal::Cast* op) override {
    ++out_.ops.casts;
    IRVisitor::visit(op);
  }
  void visit(const Halide::Internal::Call* op) override {
    if (op->type.is_float() && (op->call_type == Halide::Internal::Call::PureExtern ||
                                op->call_type == Halide::Internal::Call::Extern))
      ++out_.ops.float_math;
    if (op->is_intrinsic(Halide::Internal::Call::if_then_else)) ++out_.ops.select;
    IRVisitor::visit(op);
  }
  void visit(const Halide::Internal::Load* op) override {
    out_.loads.push_back({op->name, op->type.bytes(), op->type.lanes(), op->index});
    op->index.accept(this);
  }

  template <typename T>
  void arith(const T* op, int64_t& float_counter) {
    if (op->type.is_float()) ++float_counter;
    else ++out_.ops.int_ops;
    IRVisitor::visit(op);
  }
  template <typename T>
  void compare(const T* op) {
    if (op->a.type().is_float()) ++out_.ops.float_cmp;
    else ++out_.ops.int_ops;
    IRVisitor::visit(op);
  }

  ExprWork& out_;
};

void add_ops(OpCounts& a, const OpCounts& b) {
  a.float_add += b.float_add;
  a.float_mul += b.float_mul;
  a.float_fma += b.float_fma;
  a.float_div += b.float_div;
  a.float_cmp += b.float_cmp;
  a.float_math += b.float_math;
  a.int_ops += b.int_ops;
  a.select += b.select;
  a.casts += b.casts;
}

// The same floating-point work (index arithmetic differs between unrolled copies: their offsets).
bool same_float_work(const OpCounts& a, const OpCounts& b) {
  return a.float_add == b.float_add && a.float_mul == b.float_mul && a.float_fma == b.float_fma &&
         a.float_div == b.float_div && a.float_cmp == b.float_cmp && a.float_math == b.float_math &&
         a.select == b.select;
}

// The lowered pipeline first answers bounds queries (a call with null buffers asking what it would
// read); a real call is never one.
class NotBoundsQuery : public Halide::Internal::IRMutator {
  using IRMutator::visit;
  Expr visit(const Halide::Internal::Call* op) override {
    if (op->name == "_halide_buffer_is_bounds_query") return Halide::Internal::const_false();
    return IRMutator::visit(op);
  }
};

class NestBuilder : public IRVisitor {
 public:
  explicit NestBuilder(LoopNest& nest) : nest_(nest) {}

 private:
  using IRVisitor::visit;

  struct OpenLoop {
    int index;        // into nest_.loops
    std::string var;
    int64_t min;      // a constant lower bound of the loop's first value
  };
  // Work of let values not yet attributed to a store: the next store in program order takes it.
  struct Pending {
    size_t depth;  // open loops when the let was seen
    OpCounts ops;
    std::vector<Access> loads;  // strides over the loops open then
  };

  void visit(const Halide::Internal::For* op) override {
    Expr min = simplify(substitute(op->min));
    Expr extent = simplify(substitute(op->extent));
    Loop loop;
    loop.var = op->name;
    loop.kind = op->for_type == Halide::Internal::ForType::Parallel ? LoopKind::kParallel : LoopKind::kSerial;
    loop.parent = open_.empty() ? -1 : open_.back().index;
    loop.depth = static_cast<int>(open_.size());
    loop.preorder = preorder_++;
    // An extent that depends on outer loops (partitioned loops, tails): its bound for `extent`,
    // its mean over the outer iterations for `trips`.
    if (auto constant = as_int(extent)) {
      loop.extent = std::max<int64_t>(0, *constant);
      loop.trips = static_cast<double>(loop.extent);
    } else {
      std::vector<std::optional<int64_t>> values = sample(extent);
      double sum = 0, known = 0;
      int64_t most = 0;
      for (const auto& v : values)
        if (v) {
          sum += static_cast<double>(std::max<int64_t>(0, *v));
          most = std::max(most, *v);
          ++known;
        }
      loop.extent = std::max(most, bound(extent, Halide::Internal::Direction::Upper).value_or(most));
      loop.trips = known > 0 ? sum / known : static_cast<double>(loop.extent);
    }
    loop.extent = std::max<int64_t>(1, loop.extent);
    const int64_t lo = bound(min, Halide::Internal::Direction::Lower).value_or(0);
    const int64_t hi = bound(min, Halide::Internal::Direction::Upper).value_or(lo);
    nest_.loops.push_back(loop);
    open_.push_back({static_cast<int>(nest_.loops.size()) - 1, op->name, lo});
    lets_[op->name] = Halide::Internal::Variable::make(op->min.type(), op->name);
    bounds_.push(op->name, Interval(Expr(static_cast<int>(lo)), Expr(static_cast<int>(hi + loop.extent - 1))));
    last_leaf_.reset();
    op->body.accept(this);
    last_leaf_.reset();
    bounds_.pop(op->name);
    lets_.erase(op->name);
    open_.pop_back();
    while (!pending_.empty() && pending_.back().depth > open_.size()) pending_.pop_back();
  }

  void visit(const Halide::Internal::LetStmt* op) override {
    Expr value = simplify(substitute(op->value));
    if (op->value.type().is_handle()) {
      op->body.accept(this);
      return;
    }
    std::optional<Expr> previous;
    if (auto it = lets_.find(op->name); it != lets_.end()) previous = it->second;
    record_pending(op->value);
    lets_[op->name] = value;
    op->body.accept(this);
    if (previous) lets_[op->name] = *previous;
    else lets_.erase(op->name);
  }

  void visit(const Halide::Internal::Allocate* op) override {
    int64_t bytes = op->type.bytes();
    for (const Expr& e : op->extents) bytes *= std::max<int64_t>(1, bound(simplify(substitute(e)),
                                                                          Halide::Internal::Direction::Upper)
                                                                        .value_or(1));
    nest_.allocations.push_back({op->name, bytes, open_.empty() ? -1 : open_.back().index});
    op->body.accept(this);
  }

  // Conditions are guards and loop partitions (tails, padding borders): their arithmetic is not the
  // leaves', but they decide how often a branch runs, which the leaves' fraction keeps.
  void visit(const Halide::Internal::IfThenElse* op) override {
    Expr c = simplify(substitute(NotBoundsQuery().mutate(op->condition)));
    const double outer = fraction_;
    conditions_.push_back(c);
    fraction_ = path_fraction();
    op->then_case.accept(this);
    conditions_.back() = simplify(!c);
    if (op->else_case.defined()) {
      fraction_ = path_fraction();
      op->else_case.accept(this);
    }
    conditions_.pop_back();
    fraction_ = outer;
    last_leaf_.reset();
  }

  // The share of the open loops' iterations for which every condition on the path holds.
  double path_fraction() const {
    Expr all = Halide::Internal::const_true();
    for (const Expr& c : conditions_) all = all && c;
    all = simplify(all);
    if (Halide::Internal::is_const_one(all)) return 1;
    if (Halide::Internal::is_const_zero(all)) return 0;
    double hold = 0;
    std::vector<std::optional<int64_t>> values = sample(all);
    // A condition that does not fold at a point (it reads memory) counts as holding half the time.
    for (const auto& v : values) hold += v ? (*v != 0 ? 1.0 : 0.0) : 0.5;
    return values.empty() ? 1.0 : hold / static_cast<double>(values.size());
  }

  // `e` at points of the open loops it names (their iteration space flattened in mixed radix): all
  // of them when few, else kSamples spread evenly. nullopt where it does not fold to a constant.
  std::vector<std::optional<int64_t>> sample(const Expr& e) const {
    static constexpr int64_t kSamples = 256;
    std::vector<size_t> used;
    double points = 1;
    for (size_t i = 0; i < open_.size(); ++i)
      if (Halide::Internal::expr_uses_var(e, open_[i].var)) {
        used.push_back(i);
        points *= static_cast<double>(nest_.loops[static_cast<size_t>(open_[i].index)].extent);
      }
    const int64_t n = points <= kSamples ? static_cast<int64_t>(points) : kSamples;
    std::vector<std::optional<int64_t>> out;
    for (int64_t s = 0; s < n; ++s) {
      auto flat = static_cast<int64_t>(static_cast<double>(s) * points / static_cast<double>(n));
      std::map<std::string, Expr> point;
      for (auto it = used.rbegin(); it != used.rend(); ++it) {
        const int64_t extent = nest_.loops[static_cast<size_t>(open_[*it].index)].extent;
        point[open_[*it].var] = Expr(static_cast<int>(open_[*it].min + flat % extent));
        flat /= extent;
      }
      out.push_back(as_int(simplify(Halide::Internal::substitute(point, e))));
    }
    return out;
  }

  void visit(const Halide::Internal::AssertStmt*) override {}

  void visit(const Halide::Internal::Store* op) override {
    ExprWork work;
    OpCounter counter(work);
    op->value.accept(&counter);
    Leaf leaf;
    leaf.buffer = op->name;
    for (const OpenLoop& l : open_) leaf.loops.push_back(l.index);
    leaf.parent = open_.empty() ? -1 : open_.back().index;
    leaf.depth = static_cast<int>(open_.size());
    leaf.lanes = op->value.type().lanes();
    leaf.fraction = fraction_;
    leaf.ops = work.ops;
    for (Pending& p : pending_) {
      add_ops(leaf.ops, p.ops);
      for (Access& a : p.loads) {
        a.strides.resize(open_.size(), 0);
        add_access(leaf, std::move(a));
      }
    }
    pending_.clear();
    for (const ExprWork::LoadAt& l : work.loads) add_access(leaf, access(l.buffer, false, l.elem_bytes, l.lanes, l.index));
    add_access(leaf, access(op->name, true, op->value.type().bytes(), op->value.type().lanes(), op->index));

    // A store just like the previous one (same buffer, loop, vector length and work) is a copy left by
    // an unrolled loop: fold it into that leaf.
    if (last_leaf_ && *last_leaf_ < nest_.leaves.size()) {
      Leaf& prev = nest_.leaves[*last_leaf_];
      if (prev.buffer == leaf.buffer && prev.parent == leaf.parent && prev.lanes == leaf.lanes && prev.fraction == leaf.fraction &&
          same_float_work(first_copy_ops_[*last_leaf_], work.ops)) {
        ++prev.unrolled;
        add_ops(prev.ops, leaf.ops);
        for (Access& a : leaf.accesses) add_access(prev, std::move(a));
        return;
      }
    }
    leaf.preorder = preorder_++;
    nest_.leaves.push_back(std::move(leaf));
    first_copy_ops_.push_back(work.ops);
    last_leaf_ = nest_.leaves.size() - 1;
  }

  // Loads of a let value become pending work of the next store.
  void record_pending(const Expr& value) {
    ExprWork work;
    OpCounter counter(work);
    value.accept(&counter);
    if (work.loads.empty() && open_.empty()) return;  // set-up arithmetic outside every loop
    Pending p{open_.size(), work.ops, {}};
    for (const ExprWork::LoadAt& l : work.loads) p.loads.push_back(access(l.buffer, false, l.elem_bytes, l.lanes, l.index));
    pending_.push_back(std::move(p));
  }

  Expr substitute(const Expr& e) const {
    return Halide::Internal::substitute(lets_, Halide::Internal::substitute_in_all_lets(e));
  }
  static Expr simplify(const Expr& e) { return Halide::Internal::simplify(e); }

  std::optional<int64_t> bound(const Expr& e, Halide::Internal::Direction d) const {
    if (auto v = as_int(e)) return v;
    return as_int(Halide::Internal::find_constant_bound(e, d, bounds_));
  }

  // The index at the point where every open loop is at its first iteration, with loop `moved` one
  // step further; nullopt when that does not fold to a constant.
  std::optional<int64_t> index_at(const Expr& index, int moved) const {
    std::map<std::string, Expr> point;
    for (size_t i = 0; i < open_.size(); ++i)
      point[open_[i].var] = Expr(static_cast<int>(open_[i].min + (static_cast<int>(i) == moved ? 1 : 0)));
    return as_int(simplify(Halide::Internal::substitute(point, index)));
  }

  Access access(const std::string& buffer, bool is_store, int elem_bytes, int lanes, const Expr& raw_index) const {
    Access a;
    a.buffer = buffer;
    a.is_store = is_store;
    a.elem_bytes = elem_bytes;
    a.lanes = lanes;
    Expr index = simplify(substitute(raw_index));
    Expr base = index;
    if (lanes > 1) {
      base = simplify(Halide::Internal::extract_lane(index, 0));
      Expr next = simplify(Halide::Internal::extract_lane(index, 1));
      auto b0 = index_at(base, -1), b1 = index_at(next, -1);
      a.lane_stride = (b0 && b1) ? *b1 - *b0 : kUnknownStride;
    }
    auto origin = index_at(base, -1);
    for (size_t i = 0; i < open_.size(); ++i) {
      auto moved = index_at(base, static_cast<int>(i));
      a.strides.push_back(origin && moved ? *moved - *origin : kUnknownStride);
    }
    return a;
  }

  static void add_access(Leaf& leaf, Access a) {
    for (Access& b : leaf.accesses)
      if (b.buffer == a.buffer && b.is_store == a.is_store && b.lanes == a.lanes && b.strides == a.strides &&
          b.lane_stride == a.lane_stride) {
        b.count += a.count;
        return;
      }
    leaf.accesses.push_back(std::move(a));
  }

  LoopNest& nest_;
  std::vector<OpenLoop> open_;
  std::map<std::string, Expr> lets_;
  Scope<Interval> bounds_;
  std::vector<Pending> pending_;
  std::optional<size_t> last_leaf_;
  std::vector<Expr> conditions_;  // of the enclosing branches, each as it holds on the path taken
  double fraction_ = 1;           // path_fraction() of conditions_
  std::vector<OpCounts> first_copy_ops_;  // per leaf: the value's own work in its first copy
  int preorder_ = 0;
};

}  // namespace
}  // namespace halide

namespace halide {
namespace {

// A lowering pass that keeps the statement it is given and changes nothing.
class StmtCapture : public Halide::Internal::IRMutator {
 public:
  explicit StmtCapture(Halide::Internal::Stmt& out) : out_(out) {}
  Halide::Internal::Stmt mutate(const Halide::Internal::Stmt& s) override {
    if (!out_.defined()) out_ = s;
    return s;
  }
  using Halide::Internal::IRMutator::mutate;

 private:
  Halide::Internal::Stmt& out_;
};

}  // namespace

Result<LoopNest> lower_program(Program program, const ir::Workload& w, const Halide::Target& target) {
  LoopNest nest;
  TP_ASSIGN_OR_RETURN(const std::vector<std::vector<int>> sizes, pin_shapes(program, w));
  for (size_t i = 0; i < program.inputs.size(); ++i)
    nest.buffers.push_back({program.inputs[i].name(), product(sizes[i]) * 4, 4, true, false});
  nest.buffers.push_back({program.output.name(), product(output_sizes(program, w)) * 4, 4, false, true});

  // Halide runs custom passes at the end of lowering but before parallel loops become closures of
  // their own: the statement seen there still holds the whole nest.
  Halide::Internal::Stmt lowered;
  Halide::Pipeline pipeline(program.output);
  pipeline.add_custom_lowering_pass(new StmtCapture(lowered));
  pipeline.compile_to_module(pipeline.infer_arguments(), "tp_lowered", target.with_feature(Halide::Target::NoAsserts));
  if (!lowered.defined()) return Status::Internal("Halide lowering produced no statement");
  NestBuilder builder(nest);
  lowered.accept(&builder);
  for (Leaf& leaf : nest.leaves)
    std::stable_partition(leaf.accesses.begin(), leaf.accesses.end(), [](const Access& a) { return !a.is_store; });
  return nest;
}

}  // namespace halide

Result<LoopNest> lower(const ir::Workload& w, const Config& config, const std::string& target) {
  if (config.provider != "halide")
    return Status::Unsupported("configs of provider '" + config.provider +
                               "' have no loop nest (only the Halide provider's configs are lowered)");
  TP_RETURN_IF_ERROR(halide::halide_provider().validate(w, config));
  TP_ASSIGN_OR_RETURN(Halide::Target t, halide::parse_target(target));
  try {
    TP_ASSIGN_OR_RETURN(halide::Program program, halide::find_template(w.op)->build(w, halide::Knobs(config.knobs)));
    return halide::lower_program(std::move(program), w, t);
  } catch (const Halide::CompileError& e) {
    return Status::InvalidArgument(std::string("schedule does not lower: ") + e.what());
  } catch (const Halide::Error& e) {
    return Status::Internal(std::string("Halide lowering failed: ") + e.what());
  }
}

}  // namespace tensorperf::kernels
